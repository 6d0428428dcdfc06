import type { ApiClient, ApiResponse } from "./client.js";

export interface MetricLine {
  time?: number;
  step: number;
  data: Record<string, number | null | string>;
}

/** Writes metric lines the way Python clients do: bare NaN / Infinity / -Infinity tokens. */
export function toNdjson(lines: MetricLine[]): string {
  return lines
    .map((line) =>
      JSON.stringify({ time: line.time ?? 1_700_000_000_000 + line.step, step: line.step, data: line.data }, (_key, value) =>
        typeof value === "number" && !Number.isFinite(value) ? `@@${value}@@` : value,
      ).replace(/"@@(NaN|Infinity|-Infinity)@@"/g, "$1"),
    )
    .join("\n");
}

export function ingest(
  client: ApiClient,
  route: "metrics" | "logs" | "data",
  run: { runId: number; projectName: string },
  body: string,
): Promise<ApiResponse> {
  return client.raw("POST", `/ingest/${route}`, body, {
    "content-type": "application/x-ndjson",
    "x-run-id": String(run.runId),
    "x-project-name": run.projectName,
  });
}

/** A small deterministic PRNG (mulberry32), so "random" tests replay exactly. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The summary a metric must have, computed independently from a step → value model. */
export function expectedSummary(points: Map<number, number>) {
  const steps = [...points.keys()].sort((a, b) => a - b);
  const finite = steps.filter((step) => Number.isFinite(points.get(step)!));
  const values = finite.map((step) => points.get(step)!);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return {
    count: values.length,
    nonFiniteCount: steps.length - finite.length,
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
    mean: values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0,
    stddev: values.length ? Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length) : 0,
    firstStep: steps[0] ?? null,
    lastStep: steps.at(-1) ?? null,
    lastValue: finite.length ? points.get(finite.at(-1)!)! : null,
    lastValueStep: finite.at(-1) ?? null,
  };
}
