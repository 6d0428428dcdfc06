// A model graph's edges drawn as a layered diagram (top to bottom): pure, so it is unit-tested, and
// small (longest-path layers, one barycentre pass against crossings), so no graph library is bundled.

/** A model graph node as logged (docs/api.md, model graph): `edges` are [from, to] pairs of node keys or `node_id`s. */
export interface LoggedNode {
  type: string;
  order?: number;
  label?: string;
  node_id?: string;
  edges?: string[][];
}

export interface Edge {
  from: string;
  to: string;
}

/**
 * The distinct edges of a graph, as node keys. An endpoint may name a node by its key or its
 * `node_id`; an edge naming no node, or a node itself, is left out. A pair's further items are ignored.
 */
export function graphEdges(nodes: Record<string, LoggedNode>): Edge[] {
  const keyOf = new Map<string, string>();
  for (const [key, node] of Object.entries(nodes)) if (node.node_id !== undefined && !keyOf.has(node.node_id)) keyOf.set(node.node_id, key);
  for (const key of Object.keys(nodes)) keyOf.set(key, key); // a key wins over another node's node_id
  const seen = new Set<string>();
  const edges: Edge[] = [];
  for (const node of Object.values(nodes))
    for (const pair of node.edges ?? []) {
      const from = keyOf.get(pair[0] ?? "");
      const to = keyOf.get(pair[1] ?? "");
      if (from === undefined || to === undefined || from === to) continue;
      const id = JSON.stringify([from, to]);
      if (seen.has(id)) continue;
      seen.add(id);
      edges.push({ from, to });
    }
  return edges;
}

export interface PlacedNode {
  key: string;
  label: string;
  type: string;
  layer: number;
  x: number;
  y: number;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  /**
   * Each edge with its endpoints: bottom centre of `from` to top centre of `to` for an edge to the
   * next layer; right side to right side (`side`) for one that skips layers or goes back up (`back`),
   * so it is drawn around the nodes between, not through them.
   */
  edges: (Edge & { x1: number; y1: number; x2: number; y2: number; back: boolean; side: boolean })[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 40;
const GAP_X = 24;
const GAP_Y = 48;
const MARGIN = 12;
/** Room right of the nodes for the edges drawn beside them. */
const SIDE_ROOM = 96;

/**
 * Places the nodes that have edges in layers: a node sits one layer below its lowest predecessor
 * (longest path), edges that would close a cycle are drawn as back edges and do not place nodes.
 * Within a layer nodes are ordered by their predecessors' mean position, then by `order`.
 */
export function layoutGraph(graphNodes: Record<string, LoggedNode>, edges: Edge[]): GraphLayout {
  const nodes = new Map(Object.entries(graphNodes));
  const keys = [...new Set(edges.flatMap((edge) => [edge.from, edge.to]))]
    .filter((key) => nodes.has(key))
    .sort((a, b) => (nodes.get(a)!.order ?? 0) - (nodes.get(b)!.order ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  const rank = new Map(keys.map((key, index) => [key, index]));
  const outgoing = new Map<string, string[]>(keys.map((key) => [key, []]));
  for (const edge of edges) outgoing.get(edge.from)!.push(edge.to);

  // Back edges: found by an iterative depth-first search in node order (any depth, no recursion).
  const back = new Set<string>();
  const state = new Map<string, 1 | 2>(); // 1 on the stack, 2 done
  for (const root of keys) {
    if (state.has(root)) continue;
    const stack: { key: string; next: number }[] = [{ key: root, next: 0 }];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const targets = outgoing.get(top.key)!;
      if (top.next < targets.length) {
        const target = targets[top.next++]!;
        const seen = state.get(target);
        if (seen === 1) back.add(JSON.stringify([top.key, target]));
        else if (seen === undefined) {
          state.set(target, 1);
          stack.push({ key: target, next: 0 });
        }
      } else {
        state.set(top.key, 2);
        stack.pop();
      }
    }
  }
  const forward = edges.filter((edge) => !back.has(JSON.stringify([edge.from, edge.to])));

  // Longest-path layers over the forward edges, in topological order (Kahn).
  const layer = new Map(keys.map((key) => [key, 0]));
  const incoming = new Map(keys.map((key) => [key, 0]));
  const forwardOut = new Map<string, string[]>(keys.map((key) => [key, []]));
  for (const edge of forward) {
    incoming.set(edge.to, incoming.get(edge.to)! + 1);
    forwardOut.get(edge.from)!.push(edge.to);
  }
  const ready = keys.filter((key) => incoming.get(key) === 0);
  for (let i = 0; i < ready.length; i++) {
    const key = ready[i]!;
    for (const target of forwardOut.get(key)!) {
      layer.set(target, Math.max(layer.get(target)!, layer.get(key)! + 1));
      incoming.set(target, incoming.get(target)! - 1);
      if (incoming.get(target) === 0) ready.push(target);
    }
  }

  const layers: string[][] = [];
  for (const key of keys) (layers[layer.get(key)!] ??= []).push(key);
  const column = new Map<string, number>();
  const predecessors = new Map<string, string[]>(keys.map((key) => [key, []]));
  for (const edge of forward) predecessors.get(edge.to)!.push(edge.from);
  for (const row of layers) {
    const weight = (key: string) => {
      const above = predecessors.get(key)!.filter((from) => column.has(from));
      return above.length === 0 ? Number.POSITIVE_INFINITY : above.reduce((sum, from) => sum + column.get(from)!, 0) / above.length;
    };
    const weights = new Map(row.map((key) => [key, weight(key)]));
    row.sort((a, b) => {
      const [wa, wb] = [weights.get(a)!, weights.get(b)!];
      return wa === wb ? rank.get(a)! - rank.get(b)! : wa < wb ? -1 : 1;
    });
    for (const [index, key] of row.entries()) column.set(key, index);
  }

  const widest = Math.max(0, ...layers.map((row) => row.length));
  const contentWidth = widest === 0 ? 0 : MARGIN * 2 + widest * NODE_WIDTH + (widest - 1) * GAP_X;
  const width = widest === 0 ? 0 : contentWidth + SIDE_ROOM;
  const placed = new Map<string, PlacedNode>();
  layers.forEach((row, layerIndex) => {
    const rowWidth = row.length * NODE_WIDTH + (row.length - 1) * GAP_X;
    const left = (contentWidth - rowWidth) / 2;
    row.forEach((key, index) => {
      const node = nodes.get(key)!;
      placed.set(key, {
        key,
        label: node.label ?? key,
        type: node.type,
        layer: layerIndex,
        x: left + index * (NODE_WIDTH + GAP_X),
        y: MARGIN + layerIndex * (NODE_HEIGHT + GAP_Y),
      });
    });
  });
  const height = layers.length === 0 ? 0 : MARGIN * 2 + layers.length * NODE_HEIGHT + (layers.length - 1) * GAP_Y;
  return {
    nodes: [...placed.values()],
    edges: edges
      .filter((edge) => placed.has(edge.from) && placed.has(edge.to))
      .map((edge) => {
        const from = placed.get(edge.from)!;
        const to = placed.get(edge.to)!;
        const isBack = back.has(JSON.stringify([edge.from, edge.to])) || to.layer <= from.layer;
        return isBack || to.layer - from.layer > 1
          ? {
              ...edge,
              back: isBack,
              side: true,
              x1: from.x + NODE_WIDTH,
              y1: from.y + NODE_HEIGHT / 2,
              x2: to.x + NODE_WIDTH,
              y2: to.y + NODE_HEIGHT / 2,
            }
          : {
              ...edge,
              back: false,
              side: false,
              x1: from.x + NODE_WIDTH / 2,
              y1: from.y + NODE_HEIGHT,
              x2: to.x + NODE_WIDTH / 2,
              y2: to.y,
            };
      }),
    width,
    height,
  };
}
