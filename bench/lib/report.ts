/** Shared pieces of the benchmarks: percentiles, RSS sampling, and the target table. */
import { readFileSync } from "node:fs";

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Peak resident set size of a process so far (VmHWM), in MB; undefined once it has exited. */
export function peakRssMb(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** "min" means the value must be at least target, "max" at most. */
  target?: { bound: "min" | "max"; value: number };
}

export function printFigures(title: string, figures: Figure[]): boolean {
  console.log(`\n${title}`);
  let allMet = true;
  for (const figure of figures) {
    let verdict = "";
    if (figure.target) {
      const met = figure.target.bound === "min" ? figure.value >= figure.target.value : figure.value <= figure.target.value;
      allMet &&= met;
      verdict = `target ${figure.target.bound === "min" ? "≥" : "≤"} ${format(figure.target.value)} ${figure.unit}  ${met ? "MET" : "MISSED"}`;
    }
    console.log(`  ${figure.name.padEnd(34)} ${format(figure.value).padStart(12)} ${figure.unit.padEnd(10)} ${verdict}`);
  }
  return allMet;
}

function format(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(2);
}
