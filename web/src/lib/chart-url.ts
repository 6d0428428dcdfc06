// The chart settings of the run page and of compare (x axis, smoothing, log scale) in the page's
// URL, so that a copied link draws the same charts. The URL wins; a parameter it lacks (or gives a
// value the charts do not take) comes from the settings this browser used last.

import type { ChartSettings } from "./series.ts";

export const DEFAULT_CHART_SETTINGS: ChartSettings = { xAxis: "step", smoothing: 0, logScale: false };

export const CHART_PARAMS = { xAxis: "x", smoothing: "smoothing", logScale: "log" } as const;

/** Smoothing as the slider sets it: 0 to 0.99 in steps of 0.01. */
function parseSmoothing(text: string | null): number | undefined {
  if (text === null || !/^(0(\.\d{1,2})?|\.\d{1,2})$/.test(text)) return undefined;
  const value = Number(text);
  return value <= 0.99 ? value : undefined;
}

/** Settings this browser stored (by any earlier version of the page): each malformed one is its default. */
export function storedChartSettings(value: unknown): ChartSettings {
  const record = (typeof value === "object" && value !== null ? value : {}) as Partial<Record<keyof ChartSettings, unknown>>;
  const smoothing = record.smoothing;
  return {
    xAxis: record.xAxis === "time" ? "time" : "step",
    smoothing: typeof smoothing === "number" && smoothing >= 0 && smoothing <= 0.99 ? smoothing : 0,
    logScale: record.logScale === true,
  };
}

/** The settings a URL's query gives, each one it lacks taken from `fallback`. */
export function chartSettingsOf(query: URLSearchParams, fallback: ChartSettings): ChartSettings {
  const x = query.get(CHART_PARAMS.xAxis);
  const log = query.get(CHART_PARAMS.logScale);
  return {
    xAxis: x === "step" || x === "time" ? x : fallback.xAxis,
    smoothing: parseSmoothing(query.get(CHART_PARAMS.smoothing)) ?? fallback.smoothing,
    logScale: log === "1" ? true : log === "0" ? false : fallback.logScale,
  };
}

/** The query parameters that say `settings` (every one of them, so the link says all it shows). */
export function chartSettingsQuery(settings: ChartSettings): Record<string, string> {
  return {
    [CHART_PARAMS.xAxis]: settings.xAxis,
    [CHART_PARAMS.smoothing]: String(Math.round(settings.smoothing * 100) / 100),
    [CHART_PARAMS.logScale]: settings.logScale ? "1" : "0",
  };
}

/** Whether the query already says exactly these settings (then the URL is left as it is). */
export function saysSettings(query: URLSearchParams, settings: ChartSettings): boolean {
  return Object.entries(chartSettingsQuery(settings)).every(([name, value]) => query.get(name) === value);
}
