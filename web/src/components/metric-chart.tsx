// A run's chart for one metric: fetched when scrolled into view, re-fetched at full resolution for
// a zoomed step window, and extended with only the new steps while the run is live.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, type RunRef } from "../api.ts";
import { useLiveTick } from "../hooks.ts";
import { formatNumber } from "../lib/format.ts";
import { lastStep, mergePoints, runSeries, stepsOfRange, type ChartSettings } from "../lib/series.ts";
import type { MetricPoint } from "../types.ts";
import { Chart, PALETTE } from "./chart.tsx";

/** Points per request: about one per horizontal pixel of a wide chart, min/max/first/last kept by the server. */
export const POINTS_PER_CHART = 1000;

interface Props {
  run: RunRef;
  logName: string;
  settings: ChartSettings;
  /** Changes every few seconds while the run is RUNNING; each change fetches the steps after the last one. */
  liveTick: number;
}

export function MetricChart({ run, logName, settings, liveTick }: Props) {
  const card = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);
  const [points, setPoints] = useState<MetricPoint[] | null>(null);
  const [zoom, setZoom] = useState<{ window: [number, number]; points: MetricPoint[] } | null>(null);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const observer = new IntersectionObserver(([entry]) => entry?.isIntersecting && setVisible(true), { rootMargin: "200px" });
    observer.observe(card.current!);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (!visible) return;
    let cancelled = false;
    api.metrics(run, logName, { limit: POINTS_PER_CHART }).then(
      (response) => !cancelled && setPoints(response.metrics),
      (failure: Error) => !cancelled && setError(failure.message),
    );
    return () => void (cancelled = true);
  }, [visible, run.runId, logName]);

  useLiveTick(liveTick, () => {
    if (points === null || zoom !== null) return;
    api.metrics(run, logName, { stepMin: lastStep(points) + 1, limit: POINTS_PER_CHART }).then(
      (response) => setPoints((current) => mergePoints(current ?? [], response.metrics)),
      () => undefined, // a missed live update is retried on the next tick
    );
  });

  const shown = zoom?.points ?? points ?? [];
  const chart = useMemo(() => runSeries(shown, settings, logName, PALETTE[0]!), [shown, settings, logName]);
  const finite = shown.filter((point) => point.nonFiniteFlags === 0);
  const latest = finite[finite.length - 1];

  const onZoom = (min: number, max: number) => {
    const window = stepsOfRange(shown, settings.xAxis, min, max);
    if (!window || window[0] > window[1]) return;
    api.metrics(run, logName, { stepMin: window[0], stepMax: window[1], limit: POINTS_PER_CHART }).then(
      (response) => setZoom({ window, points: response.metrics }),
      (failure: Error) => setError(failure.message),
    );
  };

  return (
    <div class="chart-card" ref={card} data-metric={logName} data-zoomed={zoom ? `${zoom.window[0]}-${zoom.window[1]}` : undefined}>
      <div class="chart-head">
        <h3 title={logName}>{logName}</h3>
        <span class="muted">
          {latest ? `last ${formatNumber(latest.value)} @ ${latest.step}` : ""}
          {chart.markers.length > 0 ? ` · ${chart.markers.length} non-finite` : ""}
        </span>
        {zoom && (
          <button type="button" class="link" onClick={() => setZoom(null)}>
            steps {zoom.window[0]}–{zoom.window[1]} ✕
          </button>
        )}
      </div>
      {error ? (
        <p class="error">{error}</p>
      ) : points === null ? (
        <div class="chart-placeholder" aria-busy="true" />
      ) : (
        <Chart x={chart.x} series={chart.lines} markers={chart.markers} xAxis={settings.xAxis} logScale={settings.logScale} onZoom={onZoom} onReset={() => setZoom(null)} />
      )}
    </div>
  );
}
