// The workspace's live refresh of RUNNING runs: which batch reads a refresh makes (only the steps
// after what each series has, as the run page does), and how their answers join what was loaded.
// A series loaded whole comes sampled (at most 4 × buckets + 3 points); the new steps come at full
// resolution and are appended, so the series grows. Once it holds more than REBUCKET_FACTOR × that
// bound it is read whole again, sampled anew over its whole range: a long-running run's series
// stays within a few hundred points, and a refresh costs the new steps, not the whole series.

import type { BatchSeries } from "../types.ts";

/** A series is read whole again (re-bucketed) once appending made it this many times the sample's bound. */
export const REBUCKET_FACTOR = 2;

/** A series the workspace has loaded for a live run and a visible metric (undefined while it never was). */
export interface LivePair {
  runId: number;
  logName: string;
  series: BatchSeries | undefined;
}

export interface LiveRead {
  runIds: number[];
  logNames: string[];
  /** Read from this step on (the last step a series has, read again: it may have gained points); absent, the whole series. */
  stepMin?: number;
}

/**
 * The reads of one refresh: per run, its visible metrics from the lowest last step among them (a
 * metric logged less often re-sends a few steps of the others, which appendSeries replaces); runs
 * with the same start and metrics share a read. A series grown past REBUCKET_FACTOR × `bound`
 * points is read whole instead. Pairs never loaded are left to the feed's first load.
 */
export function livePlan(pairs: readonly LivePair[], bound: number): LiveRead[] {
  const windows = new Map<number, { names: string[]; stepMin: number }>();
  const whole = new Map<number, string[]>();
  for (const { runId, logName, series } of pairs) {
    if (!series) continue;
    if (series.steps.length > REBUCKET_FACTOR * bound) {
      whole.set(runId, [...(whole.get(runId) ?? []), logName]);
      continue;
    }
    const last = series.steps.length > 0 ? series.steps[series.steps.length - 1]! : Infinity;
    const window = windows.get(runId) ?? { names: [], stepMin: Infinity };
    window.names.push(logName);
    window.stepMin = Math.min(window.stepMin, last);
    windows.set(runId, window);
  }
  const reads = new Map<string, LiveRead>();
  const add = (runId: number, logNames: string[], stepMin: number | undefined) => {
    const key = `${stepMin ?? "whole"}\n${logNames.join("\n")}`;
    const read = reads.get(key);
    if (read) read.runIds.push(runId);
    else reads.set(key, { runIds: [runId], logNames, ...(stepMin === undefined ? {} : { stepMin }) });
  };
  // A run whose visible series are all still empty has nothing to start from: from step 0.
  for (const [runId, { names, stepMin }] of windows) add(runId, names, stepMin === Infinity ? 0 : stepMin);
  for (const [runId, names] of whole) add(runId, names, undefined);
  return [...reads.values()];
}

/**
 * A loaded series with the points of a later read appended: the read's steps replace those the
 * series had (a step's points come whole from the server; under MLflow's rule a step may hold
 * several), in step order, then time.
 */
export function appendSeries(existing: BatchSeries, incoming: BatchSeries): BatchSeries {
  if (incoming.steps.length === 0) return existing;
  const replaced = new Set(incoming.steps);
  const points: { step: number; value: number; flags: number; time: number }[] = [];
  const take = (series: BatchSeries, keep: (step: number) => boolean) => {
    for (let i = 0; i < series.steps.length; i++)
      if (keep(series.steps[i]!))
        points.push({ step: series.steps[i]!, value: series.values[i]!, flags: series.nonFiniteFlags[i]!, time: series.times[i]! });
  };
  take(existing, (step) => !replaced.has(step));
  take(incoming, () => true);
  points.sort((a, b) => a.step - b.step || a.time - b.time);
  return {
    runId: existing.runId,
    logName: existing.logName,
    steps: points.map((point) => point.step),
    values: points.map((point) => point.value),
    nonFiniteFlags: points.map((point) => point.flags),
    times: points.map((point) => point.time),
  };
}
