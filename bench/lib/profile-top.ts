/**
 * node --import tsx bench/lib/profile-top.ts <file.cpuprofile> [n] — the functions with the most
 * self time in a V8 CPU profile, and self time grouped by source file: where a process spends its CPU.
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
const [file, count] = process.argv.slice(2) as [string, string | undefined];
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; startTime: number; endTime: number; samples: number[] };
const total = profile.samples.length;
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  if (hits === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*\/(node_modules\/[^/]+|src|dist)\//, "$1/") || "(native)";
  const name = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  byFile.set(where, (byFile.get(where) ?? 0) + hits);
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, hits] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(count ?? 25)))
    console.log(`  ${((100 * hits) / total).toFixed(1).padStart(5)}%  ${name}`);
};
console.log(`${file}: ${total} samples over ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s`);
show("Self time by function", byFunction);
show("Self time by file", byFile);
