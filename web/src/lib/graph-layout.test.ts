import assert from "node:assert/strict";
import { test } from "node:test";
import { graphEdges, layoutGraph, type LoggedNode, NODE_HEIGHT, NODE_WIDTH } from "./graph-layout.ts";

const node = (order: number, edges?: string[][], extra: Partial<LoggedNode> = {}): LoggedNode => ({
  type: "Layer",
  order,
  edges,
  ...extra,
});

test("edges are collected from every node, by key or node_id, without repeats, self-loops or unknown ends", () => {
  const nodes = {
    input: node(0, [["input", "conv"]]),
    conv: node(1, [["input", "conv"], ["n-conv", "n-fc"], ["conv", "conv"], ["conv", "ghost"], ["conv"]], { node_id: "n-conv" }),
    fc: node(2, [], { node_id: "n-fc" }),
  };
  assert.deepEqual(graphEdges(nodes), [
    { from: "input", to: "conv" },
    { from: "conv", to: "fc" },
  ]);
  assert.deepEqual(graphEdges({ a: node(0) }), []);
});

test("a chain is one node per layer, top to bottom, edges from bottom centre to top centre", () => {
  const nodes = { a: node(0), b: node(1), c: node(2) };
  const layout = layoutGraph(nodes, [
    { from: "a", to: "b" },
    { from: "b", to: "c" },
  ]);
  assert.deepEqual(
    layout.nodes.map((placed) => [placed.key, placed.layer]),
    [
      ["a", 0],
      ["b", 1],
      ["c", 2],
    ],
  );
  const [a, b] = layout.nodes;
  assert.equal(a!.x, b!.x);
  assert.ok(b!.y > a!.y + NODE_HEIGHT);
  assert.deepEqual(layout.edges[0], {
    from: "a",
    to: "b",
    back: false,
    side: false,
    x1: a!.x + NODE_WIDTH / 2,
    y1: a!.y + NODE_HEIGHT,
    x2: b!.x + NODE_WIDTH / 2,
    y2: b!.y,
  });
  assert.ok(layout.width >= NODE_WIDTH && layout.height >= 3 * NODE_HEIGHT);
});

test("a node sits below its deepest predecessor (a skip connection does not pull it up)", () => {
  const nodes = { x: node(0), conv1: node(1), conv2: node(2), add: node(3) };
  const layout = layoutGraph(nodes, [
    { from: "x", to: "conv1" },
    { from: "conv1", to: "conv2" },
    { from: "conv2", to: "add" },
    { from: "x", to: "add" },
  ]);
  assert.equal(layout.nodes.find((placed) => placed.key === "add")!.layer, 3);
  const skip = layout.edges.find((edge) => edge.from === "x" && edge.to === "add")!;
  assert.ok(skip.side && !skip.back, "drawn beside the nodes it skips");
});

test("branches share a layer side by side, ordered by `order`", () => {
  const nodes = { root: node(0), right: node(2), left: node(1) };
  const layout = layoutGraph(nodes, [
    { from: "root", to: "right" },
    { from: "root", to: "left" },
  ]);
  const left = layout.nodes.find((placed) => placed.key === "left")!;
  const right = layout.nodes.find((placed) => placed.key === "right")!;
  assert.equal(left.layer, 1);
  assert.equal(right.layer, 1);
  assert.ok(left.x + NODE_WIDTH <= right.x);
});

test("a cycle is laid out: the edge closing it is a back edge", () => {
  const nodes = { a: node(0), b: node(1), c: node(2) };
  const layout = layoutGraph(nodes, [
    { from: "a", to: "b" },
    { from: "b", to: "c" },
    { from: "c", to: "a" },
  ]);
  assert.deepEqual(
    layout.edges.map((edge) => edge.back),
    [false, false, true],
  );
  assert.deepEqual(
    layout.nodes.map((placed) => placed.layer),
    [0, 1, 2],
  );
});

test("a long chain lays out without recursion, and an empty edge list gives an empty layout", () => {
  const count = 20_000;
  const nodes = Object.fromEntries(Array.from({ length: count }, (_, i) => [`n${i}`, node(i)]));
  const edges = Array.from({ length: count - 1 }, (_, i) => ({ from: `n${i}`, to: `n${i + 1}` }));
  assert.equal(layoutGraph(nodes, edges).nodes.at(-1)!.layer, count - 1);
  assert.deepEqual(layoutGraph({}, []), { nodes: [], edges: [], width: 0, height: 0 });
});

test("a __proto__ node key is an ordinary key", () => {
  const nodes = JSON.parse(
    '{"__proto__": {"type": "In", "order": 0, "edges": [["__proto__", "out"]]}, "out": {"type": "Out", "order": 1}}',
  );
  const edges = graphEdges(nodes);
  assert.deepEqual(edges, [{ from: "__proto__", to: "out" }]);
  assert.deepEqual(
    layoutGraph(nodes, edges).nodes.map((placed) => [placed.key, placed.type]),
    [
      ["__proto__", "In"],
      ["out", "Out"],
    ],
  );
});
