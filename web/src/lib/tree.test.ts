import assert from "node:assert/strict";
import { test } from "node:test";
import { differingKeys, flatten, modelTree, treeMatches } from "./tree.ts";

test("flatten makes dotted keys and keeps arrays whole", () => {
  assert.deepEqual(flatten({ opt: { lr: 0.1, betas: [0.9, 0.99] }, seed: 1, empty: {} }), {
    "opt.lr": 0.1,
    "opt.betas": [0.9, 0.99],
    seed: 1,
    empty: {},
  });
  assert.deepEqual(flatten(null), {});
});

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

test("flatten and search walk any depth without recursion, and keep a __proto__ key", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  const flat = flatten({ top: deep });
  assert.deepEqual(Object.values(flat), [1]);
  assert.equal(Object.keys(flat)[0]!.length, "top".length + 2 * 100_000);
  assert.ok(treeMatches("root", deep, "1"));
  assert.ok(!treeMatches("root", deep, "zzz"));
  const proto = flatten(JSON.parse('{"__proto__": {"x": 1}, "b": {"__proto__": 2}}'));
  assert.deepEqual(Object.keys(proto), ["__proto__.x", "b.__proto__"]);
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
});

test("a key named after an Object.prototype member differs only where it is missing or different", () => {
  assert.deepEqual(differingKeys([JSON.parse('{"constructor": 1, "a": 1}'), { a: 1 }]), ["constructor"]);
  assert.deepEqual(differingKeys([{ toString: "x" }, { toString: "x" }]), []);
});
