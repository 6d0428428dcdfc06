import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultMetric, mainMetrics } from "./metric-choice.ts";

test("opens on a validation loss, never a system metric", () => {
  const names = ["epoch", "sys/cpu.percentage.avg", "sys/gpu.0.util", "train/acc", "train/loss", "val/acc", "val/loss"];
  assert.equal(defaultMetric(names), "val/loss");
  assert.equal(defaultMetric(["sys/cpu", "train/acc", "val/acc"]), "val/acc");
  assert.equal(defaultMetric(["sys/cpu", "train/acc", "train/loss"]), "train/loss");
  assert.equal(defaultMetric(["sys/cpu", "system/mem", "train/acc"]), "train/acc");
  assert.equal(defaultMetric(["eval_loss", "loss"]), "eval_loss");
  assert.equal(defaultMetric(["sys/cpu.percentage.avg"]), "sys/cpu.percentage.avg", "only system metrics: the first");
  assert.equal(defaultMetric([]), "");
  assert.equal(defaultMetric(["interval/x", "value"]), "interval/x", "'val' inside a word is not validation");
});

test("the runs table's default metrics: validation losses, validation metrics, losses, then the rest; never system", () => {
  const names = ["epoch", "sys/cpu", "train/acc", "train/loss", "val/acc", "val/loss", "val/loss_ema"];
  assert.deepEqual(mainMetrics(names), ["val/loss", "val/loss_ema", "val/acc"]);
  assert.deepEqual(mainMetrics(names, 5), ["val/loss", "val/loss_ema", "val/acc", "train/loss", "epoch"]);
  assert.deepEqual(mainMetrics(["sys/gpu", "system/mem"]), []);
});
