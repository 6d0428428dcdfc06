import assert from "node:assert/strict";
import { test } from "node:test";
import { axisOf, brushFilter, brushOf, inBrush, parseBrushes, positionOf, type SweepRow, ticksOf, withBrushes } from "./sweep-axes.ts";

const row = (id: number, config: Record<string, unknown>, loss: number | null = null): SweepRow => ({
  id,
  config,
  metrics: { "val/loss": loss === null ? null : { last: loss } },
});
const rows = [
  row(1, { lr: 0.0001, optimizer: "adam", amp: true }, 0.5),
  row(2, { lr: 0.1, optimizer: "sgd", amp: false }, 0.9),
  row(3, { lr: 0.01, optimizer: "adam" }, 0.7),
  row(4, { optimizer: 3 }),
];

test("numbers over three decades or more lie on a log scale; runs without a value on the missing slot", () => {
  const lr = axisOf("config.lr", rows);
  assert.equal(lr.kind, "numeric");
  assert.equal(lr.log, true);
  assert.equal(lr.missing, true);
  assert.equal(positionOf(lr, 0.1), 1);
  assert.ok(Math.abs(positionOf(lr, 0.001) - (0.12 + 0.88 * (1 / 3))) < 1e-12, "one decade of three above the lowest");
  assert.equal(positionOf(lr, undefined), 0);
  assert.deepEqual(
    ticksOf(lr, String).map(([, text]) => text),
    ["—", "0.0001", "0.001", "0.01", "0.1"],
    "whole decades on a log axis",
  );
  const loss = axisOf("metric.val/loss", rows);
  assert.equal(loss.log, false);
  assert.ok(Math.abs(positionOf(loss, 0.7) - (0.12 + 0.88 * 0.5)) < 1e-12);
});

test('strings, booleans and mixes lie on levels; a level is its JSON (3 is not "3")', () => {
  const optimizer = axisOf("config.optimizer", rows);
  assert.equal(optimizer.kind, "categorical");
  assert.deepEqual(
    optimizer.levels.map((level) => level.text),
    ["adam", "sgd", "3"].sort((a, b) => JSON.stringify(a === "3" ? 3 : a).localeCompare(JSON.stringify(b === "3" ? 3 : b))),
  );
  assert.equal(optimizer.missing, false);
  const amp = axisOf("config.amp", rows);
  assert.equal(amp.kind, "categorical");
  assert.deepEqual(
    amp.levels.map((level) => level.value),
    [false, true],
  );
});

test("a brush is a range or levels in data terms, and the missing slot when it reaches it", () => {
  const lr = axisOf("config.lr", rows);
  // A drag from just below the top reaches the top (a line at an axis's end is hard to start on).
  const top = brushOf(lr, 0.99, positionOf(lr, 0.01) + 0.019);
  assert.ok(top.range![0] < 0.01 && top.range![0] > 0.005, `from ${top.range![0]}`);
  assert.ok(Math.abs(top.range![1] - 0.1) < 1e-12, `to ${top.range![1]}`);
  assert.equal(top.missing, undefined);
  assert.deepEqual(
    rows.filter((r) => inBrush(r, top)).map((r) => r.id),
    [2, 3],
  );
  const bottom = brushOf(lr, 0, 0.05);
  assert.equal(bottom.missing, true);
  assert.equal(bottom.range, undefined, "below the values: the slot only");
  assert.deepEqual(
    rows.filter((r) => inBrush(r, bottom)).map((r) => r.id),
    [4],
  );
  const optimizer = axisOf("config.optimizer", rows);
  const adam = brushOf(optimizer, positionOf(optimizer, "adam") - 0.01, positionOf(optimizer, "adam") + 0.01);
  assert.deepEqual(adam.values, ["adam"]);
  assert.deepEqual(
    rows.filter((r) => inBrush(r, adam)).map((r) => r.id),
    [1, 3],
  );
});

test("brushes read as a run filter, every brush holding, joined to the page's filter", () => {
  const filter = brushFilter([
    { axis: "config.lr", range: [0.01, 0.1], missing: true },
    { axis: "config.optimizer", values: ["adam"] },
    { axis: "metric.val/loss", range: [0, 0.8] },
  ]);
  assert.deepEqual(filter, {
    $and: [
      { $or: [{ "config.lr": { $gte: 0.01, $lte: 0.1 } }, { "config.lr": null }] },
      { "config.optimizer": { $in: ["adam"] } },
      { "summaryMetrics.val/loss": { $gte: 0, $lte: 0.8 } },
    ],
  });
  assert.equal(brushFilter([]), null);
  const brushes = [{ axis: "config.optimizer", values: ["sgd"] }];
  assert.equal(withBrushes("", brushes), '{"config.optimizer":{"$in":["sgd"]}}');
  assert.equal(withBrushes('{"status":"FAILED"}', brushes), '{"$and":[{"status":"FAILED"},{"config.optimizer":{"$in":["sgd"]}}]}');
  assert.equal(withBrushes('{"status":"FAILED"}', []), '{"status":"FAILED"}');
  // A key named like an Object property is a field like any other.
  assert.deepEqual(brushFilter([{ axis: "config.__proto__", values: [1] }]), { "config.__proto__": { $in: [1] } });
});

test("brushes from the URL keep well-formed ones only", () => {
  assert.deepEqual(parseBrushes(null), []);
  assert.deepEqual(parseBrushes("{"), []);
  assert.deepEqual(
    parseBrushes(
      JSON.stringify([
        { axis: "config.lr", range: [0.1, 1] },
        { axis: "status", values: ["x"] },
        { axis: "metric.loss", range: [1], missing: true },
        { axis: "config.opt", values: ["a"] },
      ]),
    ),
    [
      { axis: "config.lr", range: [0.1, 1] },
      { axis: "metric.loss", missing: true },
      { axis: "config.opt", values: ["a"] },
    ],
  );
});
