import assert from "node:assert/strict";
import { test } from "node:test";
import { differingKeys, modelTree, treeMatches } from "./tree.ts";

// flatten is the server's (src/domain/merge.ts), tested there: dotted keys, arrays and empty objects
// as leaves, any depth, a __proto__ key kept.

test("only keys that differ (or are missing somewhere) are reported", () => {
  assert.deepEqual(
    differingKeys([
      { lr: 0.1, seed: 1, opt: { m: 0.9 } },
      { lr: 0.2, seed: 1, opt: { m: 0.9 }, extra: true },
    ]),
    ["extra", "lr"],
  );
  assert.deepEqual(differingKeys([{ a: 1 }, { a: 1 }]), []);
});

test("search matches keys and values at any depth", () => {
  const config = { optimizer: { name: "adam", lr: 0.001 } };
  assert.ok(treeMatches("root", config, "ADAM"));
  assert.ok(treeMatches("root", config, "lr"));
  assert.ok(!treeMatches("root", config, "sgd"));
});

test("model graph nodes nest by depth in order and count parameters", () => {
  const tree = modelTree({
    fc: { type: "Linear", depth: 1, order: 3, params: { weight: [10, 4], bias: [10] } },
    net: { type: "Net", depth: 0, order: 0 },
    conv: { type: "Conv2d", depth: 1, order: 1 },
    relu: { type: "ReLU", depth: 2, order: 2 },
  });
  assert.equal(tree.length, 1);
  assert.deepEqual(
    tree[0]!.children.map((child) => [child.key, child.children.map((grandchild) => grandchild.key)]),
    [
      ["conv", ["relu"]],
      ["fc", []],
    ],
  );
  assert.equal(tree[0]!.children[1]!.params, 50);
});

test("search walks any depth without recursion", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  assert.ok(treeMatches("root", deep, "1"));
  assert.ok(!treeMatches("root", deep, "zzz"));
});

test("differing keys of deep configs and of __proto__ keys", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  assert.equal(differingKeys([{ top: deep }, { top: deep }]).length, 0);
  assert.deepEqual(differingKeys([JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 2}}')]), ["__proto__.x"]);
});

test("a key named after an Object.prototype member differs only where it is missing or different", () => {
  assert.deepEqual(differingKeys([JSON.parse('{"constructor": 1, "a": 1}'), { a: 1 }]), ["constructor"]);
  assert.deepEqual(differingKeys([{ toString: "x" }, { toString: "x" }]), []);
});
