// The series behind the workspace's panels: loaded for the panels on screen only, with one batch
// request (POST /api/runs/metrics/batch) per refresh for every run × metric the visible panels
// lack (plus, while the first panel on screen has nothing yet, one of its own first), split only
// where the endpoint's limits demand it (200 runs, 100 metrics, and runs × metrics × points per
// series ≤ 2,000,000: at 62 buckets, 200 runs take 39 metrics a request). The bucket count
// follows the number of runs shown (bucketsForRuns); series loaded at another count are not
// reused. While a shown run is RUNNING, each refresh asks for that run's visible metrics from the
// last step loaded on, and appends what comes (lib/live-series.ts: a series grown to twice its
// sample's size is read whole again, re-bucketed). An unreachable server is retried with
// backoff; what was loaded stays.

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { bucketsForRuns, pointsPerSeriesBound } from "../../../../src/domain/shared-with-ui.ts";
import { api, ServerUnreachable } from "../../api.ts";
import { appendSeries, livePlan } from "../../lib/live-series.ts";
import { backoffDelay } from "../../lib/retry.ts";
import { batchPlan } from "../../lib/workspace.ts";
import type { BatchSeries } from "../../types.ts";

const pairKey = (runId: number, logName: string) => `${runId}\n${logName}`;
/** A loaded series's key in the feed: the same run and metric at another bucket count is another series. */
const seriesKey = (buckets: number, runId: number, logName: string) => `${buckets}\n${pairKey(runId, logName)}`;

export interface WorkspaceSeries {
  /** A loaded series by run and metric; a pair the server has no points for is loaded and empty. */
  get: (runId: number, logName: string) => BatchSeries | undefined;
  /** Changes whenever that pair's series is loaded anew (0 before it is): a panel redraws only for its own series. */
  stampOf: (runId: number, logName: string) => number;
  /** A panel tells which metrics it needs while it is on screen (none once it leaves). */
  setVisible: (panelId: string, logNames: string[]) => void;
  /** Batch requests sent so far (tests and the bench count them). */
  requests: number;
  error: string | undefined;
}

export function useWorkspaceSeries(
  projectName: string,
  runIds: readonly number[],
  /** Every panel's ID, in the order they are shown. */
  panelOrder: readonly string[],
  /** The metrics of a panel known to be on screen before any panel is observed (none if unknown). */
  inViewFirst: readonly string[],
  liveRunIds: readonly number[],
  liveTick: number,
): WorkspaceSeries {
  const loaded = useRef(new Map<string, BatchSeries>());
  const stamps = useRef(new Map<string, number>());
  const lastStamp = useRef(0);
  const buckets = bucketsForRuns(runIds.length);
  const load = (series: BatchSeries) => {
    const key = seriesKey(buckets, series.runId, series.logName);
    loaded.current.set(key, series);
    stamps.current.set(key, ++lastStamp.current);
  };
  const inFlight = useRef(new Set<string>());
  const [visible, setVisibleMap] = useState<ReadonlyMap<string, string[]>>(new Map());
  // Bumped whenever series arrive: the workspace renders again to show them.
  const [, setVersion] = useState(0);
  const [error, setError] = useState<string>();
  const [retryTick, setRetryTick] = useState(0);
  const requests = useRef(0);
  const failures = useRef(0);
  const mounted = useRef(true);
  useEffect(() => () => void (mounted.current = false), []);
  // Another project starts empty.
  useEffect(() => {
    loaded.current = new Map();
    stamps.current = new Map();
    inFlight.current = new Set();
  }, [projectName]);

  const setVisible = useCallback((panelId: string, logNames: string[]) => {
    setVisibleMap((current) => {
      const before = current.get(panelId);
      if ((before?.join("\n") ?? "") === logNames.join("\n")) return current;
      const next = new Map(current);
      if (logNames.length > 0) next.set(panelId, logNames);
      else next.delete(panelId);
      return next;
    });
  }, []);

  /** Whole series, or with `stepMin` the steps from there on, appended to the series loaded. */
  const request = (ids: number[], names: string[], stepMin?: number) => {
    for (const { runIds: chunkIds, logNames: chunkNames } of batchPlan(ids, names, buckets)) {
      const keys = chunkIds.flatMap((runId) => chunkNames.map((name) => seriesKey(buckets, runId, name)));
      for (const key of keys) inFlight.current.add(key);
      requests.current++;
      api
        .metricsBatch({ projectName, runIds: chunkIds, logNames: chunkNames, buckets, ...(stepMin === undefined ? {} : { stepMin }) })
        .then(
          (answer) => {
            for (const key of keys) inFlight.current.delete(key);
            failures.current = 0;
            if (!mounted.current) return;
            if (stepMin !== undefined) {
              // New steps join the series loaded; a pair without any keeps what it has.
              for (const series of answer.series) {
                const existing = loaded.current.get(seriesKey(buckets, series.runId, series.logName));
                if (existing) load(appendSeries(existing, series));
              }
              setError(undefined);
              setVersion((n) => n + 1);
              return;
            }
            // Pairs without points are loaded too (empty), so they are not asked for again.
            const answered = new Set(answer.series.map((series) => pairKey(series.runId, series.logName)));
            for (const runId of chunkIds)
              for (const logName of chunkNames)
                if (!answered.has(pairKey(runId, logName))) load({ runId, logName, steps: [], values: [], nonFiniteFlags: [], times: [] });
            for (const series of answer.series) load(series);
            setError(undefined);
            setVersion((n) => n + 1);
          },
          (failure: Error) => {
            for (const key of keys) inFlight.current.delete(key);
            if (!mounted.current) return;
            if (failure instanceof ServerUnreachable) setTimeout(() => setRetryTick((n) => n + 1), backoffDelay(failures.current++));
            else setError(failure.message);
          },
        );
    }
  };

  // Whatever the given metrics lack: the runs missing any of them × the metrics any run lacks.
  const requestLacking = (names: string[]) => {
    const lackingRuns = new Set<number>();
    const lackingNames = new Set<string>();
    for (const runId of runIds)
      for (const name of names) {
        const key = seriesKey(buckets, runId, name);
        if (loaded.current.has(key) || inFlight.current.has(key)) continue;
        lackingRuns.add(runId);
        lackingNames.add(name);
      }
    if (lackingRuns.size > 0) request([...lackingRuns], [...lackingNames]);
  };

  // A panel known to be in view asks as soon as its runs and names are known: the page lays out its
  // panels and observes them meanwhile (~300 ms for 50 panels and the runs table, docs/benchmarks.md,
  // "Workspace page"). Observed on screen later, its series are in flight or loaded, not asked again.
  useLayoutEffect(() => {
    if (inViewFirst.length > 0) requestLacking([...inViewFirst]);
  }, [projectName, runIds.join(","), inViewFirst.join("\n"), retryTick]);

  // The first panel on screen asks on its own while it lacks series: its small answer draws it
  // without waiting for the whole window's (docs/benchmarks.md, "Workspace page"); then the rest.
  useEffect(() => {
    const first = panelOrder.find((panelId) => visible.has(panelId));
    if (first !== undefined && visible.size > 1) requestLacking(visible.get(first)!);
    requestLacking([...new Set([...visible.values()].flat())]);
  }, [projectName, runIds.join(","), visible, retryTick]);

  // A live refresh: the RUNNING runs' visible metrics from the last step each has (livePlan).
  useEffect(() => {
    if (liveTick === 0) return;
    const names = [...new Set([...visible.values()].flat())];
    const pairs = liveRunIds.flatMap((runId) =>
      names
        .filter((logName) => !inFlight.current.has(seriesKey(buckets, runId, logName)))
        .map((logName) => ({ runId, logName, series: loaded.current.get(seriesKey(buckets, runId, logName)) })),
    );
    for (const read of livePlan(pairs, pointsPerSeriesBound(buckets))) request(read.runIds, read.logNames, read.stepMin);
  }, [liveTick]);

  return {
    get: (runId, logName) => loaded.current.get(seriesKey(buckets, runId, logName)),
    stampOf: (runId, logName) => stamps.current.get(seriesKey(buckets, runId, logName)) ?? 0,
    setVisible,
    requests: requests.current,
    error,
  };
}

/**
 * The series of the given runs × metrics within a step window, read again through the same batch
 * request (stepMin, stepMax): a zoomed panel's window, sampled at the feed's bucket count over the
 * window alone, so it comes at full resolution when it holds at most about 4 × that many points.
 * Split as the feed's requests are (batchPlan); pairs without points in the window are loaded, empty.
 */
export async function loadWindow(
  projectName: string,
  runIds: readonly number[],
  logNames: readonly string[],
  [stepMin, stepMax]: [number, number],
): Promise<Map<string, BatchSeries>> {
  const buckets = bucketsForRuns(runIds.length);
  const plan = batchPlan(runIds, logNames, buckets);
  const answers = await Promise.all(plan.map((chunk) => api.metricsBatch({ projectName, ...chunk, stepMin, stepMax, buckets })));
  const series = new Map<string, BatchSeries>();
  for (const runId of runIds)
    for (const logName of logNames)
      series.set(pairKey(runId, logName), { runId, logName, steps: [], values: [], nonFiniteFlags: [], times: [] });
  for (const answer of answers) for (const one of answer.series) series.set(pairKey(one.runId, one.logName), one);
  return series;
}

/** A series of loadWindow's answer. */
export const windowSeries = (loaded: ReadonlyMap<string, BatchSeries>, runId: number, logName: string) =>
  loaded.get(pairKey(runId, logName));
