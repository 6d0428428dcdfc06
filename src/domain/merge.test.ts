import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deepMerge, flatten, type Json } from "./merge.js";

describe("deepMerge", () => {
  it("merges objects key by key, recursively", () => {
    const base = { lr: 0.1, optim: { name: "adam", betas: [0.9, 0.99], eps: 1e-8 }, keep: true };
    const patch = { optim: { name: "sgd", momentum: 0.9 }, epochs: 3 };
    assert.deepEqual(deepMerge(base, patch), {
      lr: 0.1,
      optim: { name: "sgd", betas: [0.9, 0.99], eps: 1e-8, momentum: 0.9 },
      keep: true,
      epochs: 3,
    });
  });

  it("replaces arrays instead of merging them", () => {
    assert.deepEqual(deepMerge({ layers: [1, 2, 3] }, { layers: [4] }), { layers: [4] });
    assert.deepEqual(deepMerge({ a: [{ x: 1 }] }, { a: [{ y: 2 }] }), { a: [{ y: 2 }] });
  });

  it("replaces scalars with objects and objects with scalars", () => {
    assert.deepEqual(deepMerge({ a: 1 }, { a: { b: 2 } }), { a: { b: 2 } });
    assert.deepEqual(deepMerge({ a: { b: 2 } }, { a: "flat" }), { a: "flat" });
    assert.deepEqual(deepMerge({ a: { b: 2 } }, { a: [1] }), { a: [1] });
  });

  it("sets a key to null on null, without deleting it", () => {
    const merged = deepMerge({ a: { b: 1 }, c: 2 }, { a: null, c: null }) as Record<string, Json>;
    assert.deepEqual(merged, { a: null, c: null });
    assert.ok(Object.hasOwn(merged, "a"));
  });

  it("takes the patch whole when the base is absent or not an object", () => {
    assert.deepEqual(deepMerge(undefined, { a: 1 }), { a: 1 });
    assert.deepEqual(deepMerge(null, { a: 1 }), { a: 1 });
    assert.deepEqual(deepMerge([1, 2], { a: 1 }), { a: 1 });
    assert.equal(deepMerge({ a: 1 }, 5), 5);
    assert.equal(deepMerge({ a: 1 }, null), null);
  });

  it("modifies neither input", () => {
    const base = { a: { b: 1, list: [1] }, c: 1 };
    const patch = { a: { d: 2, list: [2] }, e: { f: 3 } };
    const baseCopy = structuredClone(base);
    const patchCopy = structuredClone(patch);
    const merged = deepMerge(base, patch);
    assert.deepEqual(merged, { a: { b: 1, d: 2, list: [2] }, c: 1, e: { f: 3 } });
    assert.deepEqual(base, baseCopy);
    assert.deepEqual(patch, patchCopy);
  });

  it("keeps keys named __proto__ or constructor as data (configs arrive as parsed JSON)", () => {
    const base = JSON.parse('{"__proto__": {"a": 1}, "x": 1}') as Json;
    const patch = JSON.parse('{"__proto__": {"b": 2}, "constructor": {"c": 3}}') as Json;
    const merged = deepMerge(base, patch);
    assert.equal(JSON.stringify(merged), '{"__proto__":{"a":1,"b":2},"x":1,"constructor":{"c":3}}');
    assert.equal(Object.getPrototypeOf(merged), Object.prototype);
    assert.equal(JSON.stringify(deepMerge({}, patch)), '{"__proto__":{"b":2},"constructor":{"c":3}}');
    assert.equal(({} as Record<string, unknown>).b, undefined);
  });
});

describe("flatten", () => {
  it("flattens nested objects to dotted keys; arrays and scalars are leaves", () => {
    assert.deepEqual(flatten({ a: { b: 1, c: { d: "x" } }, e: [1, { f: 2 }], g: null, h: true }), {
      "a.b": 1,
      "a.c.d": "x",
      e: [1, { f: 2 }],
      g: null,
      h: true,
    });
  });

  it("keeps an empty object as a leaf value", () => {
    assert.deepEqual(flatten({ a: {}, b: { c: {} } }), { a: {}, "b.c": {} });
  });

  it("keeps a key named __proto__ as data", () => {
    const flat = flatten(JSON.parse('{"__proto__": 1, "a": {"__proto__": {"b": 2}}}') as Json);
    assert.equal(JSON.stringify(flat), '{"__proto__":1,"a.__proto__.b":2}');
    assert.equal(Object.getPrototypeOf(flat), Object.prototype);
  });

  it("gives an empty object for absent, null and non-object values", () => {
    for (const value of [undefined, null, 3, "s", [1, 2]] as (Json | undefined)[])
      assert.deepEqual(flatten(value), {}, JSON.stringify(value));
  });
});

describe("flatten at depth", () => {
  it("flattens values nested far deeper than the stack allows recursion", () => {
    let deep: Json = 1;
    for (let i = 0; i < 100_000; i++) deep = { k: deep };
    const flat = flatten({ top: deep });
    assert.deepEqual(Object.values(flat), [1]);
    assert.equal(Object.keys(flat)[0]!.length, "top".length + 2 * 100_000);
  });
});
