import assert from "node:assert/strict";
import { test } from "node:test";
import { RUN_FILTER_GRAMMAR } from "../../../src/domain/shared-with-ui.ts";
import { buildRunFilter, FILTER_OPERATORS, parseOperand } from "./run-filter.ts";

test("the builder offers every operator of the server's grammar, and no other", () => {
  assert.deepEqual([...FILTER_OPERATORS].sort(), [...RUN_FILTER_GRAMMAR.leafOperators].sort());
});

test("operands keep numbers, booleans and null typed", () => {
  assert.equal(parseOperand("0.01"), 0.01);
  assert.equal(parseOperand("true"), true);
  assert.equal(parseOperand("null"), null);
  assert.equal(parseOperand("adam"), "adam");
});

test("no complete row means no filter", () => {
  assert.equal(buildRunFilter([]), "");
  assert.equal(buildRunFilter([{ field: "config.lr", operator: "$gt", value: " " }]), "");
});

test("one row is one condition; several are an $and", () => {
  assert.equal(buildRunFilter([{ field: "config.lr", operator: "$lte", value: "0.01" }]), '{"config.lr":{"$lte":0.01}}');
  const filter = JSON.parse(
    buildRunFilter([
      { field: "tags", operator: "$in", value: "baseline, 42" },
      { field: "name", operator: "$regex", value: "^resnet" },
      { field: "summaryMetrics.val/loss", operator: "$lt", value: "0.2" },
    ]),
  );
  assert.deepEqual(filter, {
    $and: [
      { tags: { $in: ["baseline", "42"] } },
      { name: { $regex: "^resnet", $options: "i" } },
      { "summaryMetrics.val/loss": { $lt: 0.2 } },
    ],
  });
});

test("names stay text even when they look like numbers", () => {
  assert.equal(buildRunFilter([{ field: "name", operator: "$eq", value: "42" }]), '{"name":{"$eq":"42"}}');
});
