/**
 * node --import tsx bench/lib/profile-top.ts <file.cpuprofile> [n] — the functions with the most
 * self time in a V8 CPU profile, self time grouped by source file, and the functions with the most
 * total time (their own and their callees'): where a process spends its CPU, and on whose behalf.
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const [file, count] = process.argv.slice(2) as [string, string | undefined];
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; startTime: number; endTime: number; samples: number[] };
const total = profile.samples.length;
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
const byTotal = new Map<string, number>();
const parentOf = new Map<number, Node>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);
const whereOf = (node: Node) => node.callFrame.url.replace(/^.*\/(node_modules\/[^/]+|src|dist)\//, "$1/") || "(native)";
const nameOf = (node: Node) => `${node.callFrame.functionName || "(anonymous)"} ${whereOf(node)}:${node.callFrame.lineNumber + 1}`;
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  if (hits === 0) continue;
  byFunction.set(nameOf(node), (byFunction.get(nameOf(node)) ?? 0) + hits);
  byFile.set(whereOf(node), (byFile.get(whereOf(node)) ?? 0) + hits);
  // Each function on the stack counts the hits once, however often it recurses.
  const onStack = new Set<string>();
  for (let at: Node | undefined = node; at; at = parentOf.get(at.id)) onStack.add(nameOf(at));
  for (const name of onStack) byTotal.set(name, (byTotal.get(name) ?? 0) + hits);
}
byTotal.delete(nameOf(profile.nodes[0]!)); // the root: every sample
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(count ?? 25)))
    console.log(`  ${((100 * hits) / total).toFixed(1).padStart(5)}%  ${name}`);
};
console.log(`${file}: ${total} samples over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`);
show("Self time by function", byFunction);
show("Self time by file", byFile);
show("Total time by function (with its callees)", byTotal);
