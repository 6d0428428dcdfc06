// The chart settings of the run page and of compare, kept in the page's URL (lib/chart-url.ts) so a
// copied link draws the same charts, and in this browser as the settings of the next page opened
// without them.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { useStoredState } from "../hooks.ts";
import { chartSettingsOf, chartSettingsQuery, DEFAULT_CHART_SETTINGS, saysSettings, storedChartSettings } from "../lib/chart-url.ts";
import type { ChartSettings } from "../lib/series.ts";
import { setQuery, useLocation } from "../router.tsx";

/**
 * How long the URL waits for the settings to stop changing: a dragged smoothing slider changes them
 * dozens of times a second, and browsers throttle history updates that come that fast.
 */
const URL_DELAY_MS = 250;

export function useChartSettings(): [ChartSettings, (settings: ChartSettings) => void] {
  const { query } = useLocation();
  const [stored, setStored] = useStoredState("stepwise.chartSettings", DEFAULT_CHART_SETTINGS);
  // Settings changed but not yet in the URL.
  const [pending, setPending] = useState<ChartSettings | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const fromUrl = chartSettingsOf(query, storedChartSettings(stored));
  const current = pending ?? fromUrl;
  // One object while the values stay the same: charts redraw when the settings change, not on every URL change.
  const settings = useMemo(() => current, [current.xAxis, current.smoothing, current.logScale]);
  const complete = saysSettings(query, fromUrl);
  useEffect(() => {
    // A page opened without them (or with some) gets them all, so its URL says what it draws.
    if (!complete && pending === null) setQuery(chartSettingsQuery(fromUrl), { replace: true });
  }, [complete, pending]);
  const change = (next: ChartSettings) => {
    setPending(next);
    setStored(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      setQuery(chartSettingsQuery(next), { replace: true });
      setPending(null);
    }, URL_DELAY_MS);
  };
  return [settings, change];
}
