import assert from "node:assert/strict";
import { test } from "node:test";
import { chartSettingsOf, chartSettingsQuery, DEFAULT_CHART_SETTINGS, saysSettings, storedChartSettings } from "./chart-url.ts";
import type { ChartSettings } from "./series.ts";

const STORED: ChartSettings = { xAxis: "time", smoothing: 0.3, logScale: true };

test("the URL's chart settings win; each one it lacks is the browser's last", () => {
  assert.deepEqual(chartSettingsOf(new URLSearchParams("x=step&smoothing=0.85&log=0"), STORED), {
    xAxis: "step",
    smoothing: 0.85,
    logScale: false,
  });
  assert.deepEqual(chartSettingsOf(new URLSearchParams(""), STORED), STORED);
  assert.deepEqual(chartSettingsOf(new URLSearchParams("smoothing=0"), STORED), { ...STORED, smoothing: 0 });
});

test("values the charts do not take fall back rather than break the charts", () => {
  for (const query of ["x=epoch&smoothing=1&log=yes", "smoothing=-0.5", "smoothing=0.999", "smoothing=NaN", "smoothing=1e-2", "smoothing="])
    assert.deepEqual(chartSettingsOf(new URLSearchParams(query), STORED), STORED, query);
});

test("a link says every setting, and reads back as the same settings", () => {
  const settings: ChartSettings = { xAxis: "step", smoothing: 0.6000000001, logScale: false };
  const query = new URLSearchParams(chartSettingsQuery(settings));
  assert.equal(query.toString(), "x=step&smoothing=0.6&log=0");
  assert.deepEqual(chartSettingsOf(query, STORED), { ...settings, smoothing: 0.6 });
  assert.ok(saysSettings(query, { ...settings, smoothing: 0.6 }));
  assert.ok(!saysSettings(new URLSearchParams("x=step&smoothing=0.6"), settings), "a missing parameter is written");
});

test("settings stored by this browser are checked too: a malformed one is its default", () => {
  assert.deepEqual(storedChartSettings(STORED), STORED);
  assert.deepEqual(storedChartSettings(null), DEFAULT_CHART_SETTINGS);
  assert.deepEqual(storedChartSettings({ xAxis: "epoch", smoothing: 5, logScale: "yes" }), DEFAULT_CHART_SETTINGS);
});
