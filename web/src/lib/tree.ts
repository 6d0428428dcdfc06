// Configs, metadata and model graphs as trees the UI can fold and search. Configs flatten to dotted
// keys as the run list's field values do: the server's flatten (src/domain/merge.ts).

import { flatten, isPlainObject, type Json, splitKeys } from "../../../src/domain/shared-with-ui.ts";

/** The keys whose values are not the same in every config (a key missing somewhere differs; domain/merge.ts splitKeys). */
export function differingKeys(configs: readonly unknown[]): string[] {
  return splitKeys(configs.map((config) => flatten(config as Json))).differing;
}

/** Whether a subtree holds a key or value that contains the search text (case-insensitive). Iterative: any depth. */
export function treeMatches(key: string, value: unknown, search: string): boolean {
  if (search === "") return true;
  const needle = search.toLowerCase();
  const pending: [string, unknown][] = [[key, value]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [name, current] = next;
    if (name.toLowerCase().includes(needle)) return true;
    if (isPlainObject(current) || Array.isArray(current)) for (const entry of Object.entries(current)) pending.push(entry);
    else if (String(current).toLowerCase().includes(needle)) return true;
  }
  return false;
}

export interface GraphNode {
  key: string;
  label: string;
  type: string;
  params: number;
  children: GraphNode[];
}

/**
 * Model graph nodes (a flat map with depth and order, as torchinfo-style loggers send them) as a
 * tree: each node's parent is the nearest earlier node one level shallower.
 */
export function modelTree(
  nodes: Record<string, { type: string; depth: number; order?: number; label?: string; params?: Record<string, number[]> }>,
): GraphNode[] {
  const ordered = Object.entries(nodes).sort(([, a], [, b]) => (a.order ?? 0) - (b.order ?? 0));
  const roots: GraphNode[] = [];
  const stack: { depth: number; node: GraphNode }[] = [];
  for (const [key, node] of ordered) {
    const params = Object.values(node.params ?? {}).reduce((sum, shape) => sum + shape.reduce((product, size) => product * size, 1), 0);
    const treeNode: GraphNode = { key, label: node.label ?? key, type: node.type, params, children: [] };
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= node.depth) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.node.children.push(treeNode);
    else roots.push(treeNode);
    stack.push({ depth: node.depth, node: treeNode });
  }
  return roots;
}
