// A run's chart for one metric: its points come from the run's series feed (run/series-feed.ts),
// which loads them while the chart is on screen and keeps them current while the run is live; a
// zoomed step window is fetched here at full resolution.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, ServerUnreachable, type RunRef } from "../api.ts";
import type { Observe } from "../hooks.ts";
import { describeSeriesEnd } from "../lib/series-end.ts";
import { runColor } from "../lib/run-color.ts";
import { isSystem } from "../lib/metric-choice.ts";
import { drawnAxis, runSeries, stepsOfRange, type ChartSettings } from "../lib/series.ts";
import type { MetricPoint, MetricStatistics } from "../types.ts";
import { Chart } from "./chart.tsx";
import { POINTS_PER_CHART } from "./run/series-feed.ts";

interface Props {
  run: RunRef;
  metric: MetricStatistics;
  /** The loaded points; undefined until the feed has them. */
  points: MetricPoint[] | undefined;
  settings: ChartSettings;
  /** Watches the card: the feed loads the points of charts on screen. */
  observe: Observe;
  /** The step the run was forked at (null when it is not a fork): marked on step axes, where the parent's points end. */
  forkStep: number | null;
}

export function MetricChart({ run, metric, points, settings, observe, forkStep }: Props) {
  const { logName } = metric;
  const card = useRef<HTMLDivElement>(null);
  const [zoom, setZoom] = useState<{ window: [number, number]; points: MetricPoint[] } | null>(null);
  const [error, setError] = useState<string>();

  useEffect(() => observe(card.current!, logName), [logName]);

  const shown = zoom?.points ?? points ?? [];
  const xAxis = drawnAxis(settings.xAxis, [shown.map((point) => point.step)], "time", [logName]);
  const chart = useMemo(
    () => runSeries(shown, { ...settings, xAxis }, logName, runColor(run.runId)),
    [shown, settings, xAxis, logName, run.runId],
  );
  const end = describeSeriesEnd(metric.lastPoint, metric.last);

  const onZoom = (min: number, max: number) => {
    const window = stepsOfRange(shown, xAxis, min, max);
    if (!window || window[0] > window[1]) return;
    api.metrics(run, logName, { stepMin: window[0], stepMax: window[1], limit: POINTS_PER_CHART }).then(
      (response) => setZoom({ window, points: response.metrics }),
      // Unreachable: the chart stays as it is (the shell says "reconnecting…"); drag again later.
      (failure: Error) => failure instanceof ServerUnreachable || setError(failure.message),
    );
  };

  return (
    <div class="chart-card" ref={card} data-metric={logName} data-zoomed={zoom ? `${zoom.window[0]}-${zoom.window[1]}` : undefined}>
      <div class="chart-head">
        <h3 title={logName}>{logName}</h3>
        <span class="series-end" data-testid="series-end">
          <span class={end.diverged ? "diverged" : "muted"}>{end.text}</span>
          {end.finite && <span class="muted"> · {end.finite}</span>}
          {chart.markers.length > 0 ? <span class="muted"> · {chart.markers.length} non-finite shown</span> : ""}
          {xAxis !== settings.xAxis && (
            <span class="muted" data-testid="one-step">
              {" "}
              · {isSystem(logName) ? "a system metric" : `all at step ${shown[0]?.step}`}: drawn against time
            </span>
          )}
        </span>
        {zoom && (
          <button type="button" class="link" onClick={() => setZoom(null)}>
            steps {zoom.window[0]}–{zoom.window[1]} ✕
          </button>
        )}
      </div>
      {error ? (
        <p class="error">{error}</p>
      ) : points === undefined ? (
        <div class="chart-placeholder" aria-busy="true" />
      ) : (
        <Chart
          x={chart.x}
          series={chart.lines}
          markers={chart.markers}
          xAxis={xAxis}
          rules={forkStep !== null && xAxis === "step" ? [{ x: forkStep, label: `forked at ${forkStep}` }] : []}
          logScale={settings.logScale}
          clipY={settings.clipY}
          onZoom={onZoom}
          onReset={() => setZoom(null)}
        />
      )}
    </div>
  );
}
