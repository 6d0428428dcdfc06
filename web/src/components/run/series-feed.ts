// The points behind a run's charts: loaded for the charts on screen only, one request for all of
// them (per URL-sized batch of names), and while the run is live, one request per refresh for the
// visible charts whose metric has new steps (the statistics, reloaded each refresh, tell which).
// A failed load is retried with backoff; what was loaded stays.

import { useEffect, useRef, useState } from "preact/hooks";
import { METRIC_READ_NAMES } from "../../../../src/domain/shared-with-ui.ts";
import { api, type RunRef } from "../../api.ts";
import { type Observe, useOnScreen } from "../../hooks.ts";
import { backoffDelay, batchNames } from "../../lib/retry.ts";
import { lastStep, mergePoints } from "../../lib/series.ts";
import type { MetricPoint, MetricStatistics } from "../../types.ts";

/** Points per metric and request: about one per horizontal pixel of a wide chart (the server keeps extremes and non-finite points). */
export const POINTS_PER_CHART = 1000;

export interface RunSeries {
  /** Loaded points by metric; a metric not loaded yet is absent. */
  points: ReadonlyMap<string, MetricPoint[]>;
  /** A chart has its card watched: its points are loaded while the card is on screen (or 200 px from it). */
  observe: Observe;
}

function byName(points: MetricPoint[]): Map<string, MetricPoint[]> {
  const grouped = new Map<string, MetricPoint[]>();
  for (const point of points) {
    const list = grouped.get(point.logName);
    if (list) list.push(point);
    else grouped.set(point.logName, [point]);
  }
  return grouped;
}

export function useRunSeries(run: RunRef, metrics: readonly MetricStatistics[] | undefined): RunSeries {
  const [points, setPoints] = useState<ReadonlyMap<string, MetricPoint[]>>(new Map());
  const [visible, setVisibleNames] = useState<ReadonlySet<string>>(new Set());
  const inFlight = useRef(new Set<string>());
  /** Each chart's metric count (finite points) when its points last loaded: a count that moves at the same last step means new points there. */
  const loadedCount = useRef(new Map<string, number>());
  const failures = useRef(0);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  const [retryTick, setRetryTick] = useState(0);

  const observe = useOnScreen("200px", (shown) =>
    setVisibleNames((current) => {
      let next: Set<string> | undefined;
      for (const [logName, onScreen] of shown) {
        if (current.has(logName) === onScreen) continue;
        next ??= new Set(current);
        if (onScreen) next.add(logName);
        else next.delete(logName);
      }
      return next ?? current;
    }),
  );

  useEffect(() => {
    if (!metrics) return;
    const lastStepOf = new Map(metrics.map((metric) => [metric.logName, metric.lastPoint?.step ?? -1]));
    const countOf = new Map(metrics.map((metric) => [metric.logName, metric.count]));
    const idle = [...visible].filter((name) => !inFlight.current.has(name) && lastStepOf.has(name));
    // Charts on screen without points get their whole series; charts behind their metric's last step get the new steps.
    const missing = idle.filter((name) => !points.has(name));
    const behind = idle.filter((name) => points.has(name) && lastStepOf.get(name)! > lastStep(points.get(name)!));
    // A metric that grew at its last step (MLflow's log_metric without a step keeps every value at step 0) gets that step again.
    const grown = idle.filter(
      (name) =>
        points.has(name) && !behind.includes(name) && loadedCount.current.has(name) && loadedCount.current.get(name) !== countOf.get(name),
    );
    const load = (names: string[], stepMin: number | undefined) => {
      for (const batch of batchNames(names, METRIC_READ_NAMES)) {
        for (const name of batch) inFlight.current.add(name);
        const counts = batch.map((name) => [name, countOf.get(name)!] as const);
        api.metricsOf(run, batch, { limit: POINTS_PER_CHART, stepMin }).then(
          (loaded) => {
            for (const name of batch) inFlight.current.delete(name);
            for (const [name, count] of counts) loadedCount.current.set(name, count);
            failures.current = 0;
            if (!mounted.current) return;
            const grouped = byName(loaded);
            setPoints((current) => {
              const next = new Map(current);
              for (const name of batch) next.set(name, mergePoints(current.get(name) ?? [], grouped.get(name) ?? []));
              return next;
            });
          },
          () => {
            for (const name of batch) inFlight.current.delete(name);
            if (mounted.current) setTimeout(() => setRetryTick((tick) => tick + 1), backoffDelay(failures.current++));
          },
        );
      }
    };
    if (missing.length > 0) load(missing, undefined);
    // One request for every chart behind: from the lowest step any of them lacks (a chart already
    // past it gets steps it has again, and mergePoints replaces a step's points with those sent).
    if (behind.length > 0) load(behind, Math.min(...behind.map((name) => lastStep(points.get(name)!) + 1)));
    if (grown.length > 0) load(grown, Math.min(...grown.map((name) => lastStep(points.get(name)!))));
    // points is read, not a trigger: a load finishing must not start another by itself. A load
    // outlives a re-run of this effect (a scroll, a refresh): its names stay in flight until it ends.
  }, [run.runId, metrics, visible, retryTick]);

  return { points, observe };
}
