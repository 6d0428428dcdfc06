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

/**
 * Polls a server's /api/health until stopped; `stop` answers the worst latency seen, which is how
 * long the server's event loop was kept busy meanwhile.
 */
export function probeHealth(url: string, pauseMs = 2): { stop(): Promise<number> } {
  let worst = 0;
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${url}/api/health`)).text();
      worst = Math.max(worst, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await probe;
      return worst;
    },
  };
}

/** CPU time (user + system) a process has used so far, in seconds; undefined once it has exited. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in ticks of 1/100 s.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** The most CPU time seen per process: summed at the end, it counts processes that have exited since. */
export class CpuTally {
  private readonly seen = new Map<number, number>();
  sample(pids: Iterable<number>): void {
    for (const pid of pids) {
      const used = cpuSeconds(pid);
      if (used !== undefined) this.seen.set(pid, Math.max(this.seen.get(pid) ?? 0, used));
    }
  }
  total(): number {
    let sum = 0;
    for (const used of this.seen.values()) sum += used;
    return sum;
  }
}
