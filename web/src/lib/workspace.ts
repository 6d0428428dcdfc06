// The project workspace's pure logic: how metrics fall into sections and panels, the layout kept in
// the browser (localStorage, key `stepwise.workspace.<project>`), hidden runs (key
// `stepwise.hiddenRuns.<project>`), the visible-run cap, metric search, and turning the batch
// read's series into chart lines on the chosen x axis. Stored text is parsed defensively: a
// malformed or older layout falls back to defaults part by part, never throws.

import {
  BATCH_MAX_LOG_NAMES,
  BATCH_MAX_POINTS,
  BATCH_MAX_RUNS,
  logGroupOf,
  pointsPerSeriesBound,
} from "../../../src/domain/shared-with-ui.ts";
import type { BatchSeries } from "../types.ts";
import { type Grouping, NO_GROUPING, parseGrouping } from "./grouping.ts";
import { type NonFiniteKind, nonFiniteKind } from "./series.ts";

/**
 * How many runs the workspace overlays: the user raises the cap one step at a time. Past 200 (the
 * run list's page and the batch read's run limit) runs come in pages of 200 and series in one batch
 * request per 200 runs; at 1,000 a sweep is mostly read grouped (lib/grouping.ts).
 */
export const RUN_CAPS = [20, 50, 100, 200, 500, 1000] as const;

/** The runs table's selection, what its URL says: the runs the workspace and the analysis read. */
export interface Selection {
  search: string;
  tags: string;
  status: string;
  sort: string;
  filter: string;
}
export const DEFAULT_CAP = RUN_CAPS[0];

/** The window width from which the workspace sits beside the runs table (workspace.css). */
export const SIDE_BY_SIDE = "(min-width: 1100px)";

/** The next larger cap, or null at the largest. */
export function nextCap(cap: number): number | null {
  return RUN_CAPS.find((step) => step > cap) ?? null;
}

/** Sections first: `train`, then `val`, then every other group alphabetically, the ungrouped ("") last. */
const FIRST_SECTIONS = ["train", "val"];
export function compareSections(a: string, b: string): number {
  const rank = (name: string) => {
    const first = FIRST_SECTIONS.indexOf(name);
    if (first !== -1) return first;
    return name === "" ? FIRST_SECTIONS.length + 1 : FIRST_SECTIONS.length;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** Items grouped by the log group of their name, sections ordered by compareSections, names alphabetically inside. */
export function sectionsOf<T>(items: readonly T[], nameOf: (item: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of [...items].sort((a, b) => nameOf(a).localeCompare(nameOf(b)))) {
    const group = logGroupOf(nameOf(item));
    const members = groups.get(group);
    if (members) members.push(item);
    else groups.set(group, [item]);
  }
  return [...groups.entries()].sort(([a], [b]) => compareSections(a, b));
}

/** Metric search: a plain, case-insensitive substring (characters like `.` or `(` match themselves). */
export function matchesSearch(name: string, search: string): boolean {
  return name.toLowerCase().includes(search.trim().toLowerCase());
}

export type XChoice = "step" | "relative" | "wall" | "metric";
export const X_CHOICES: readonly XChoice[] = ["step", "relative", "wall", "metric"];

export interface PanelOptions {
  logScale: boolean;
  /** EMA weight, 0 (off) to 0.99. */
  smoothing: number;
  xAxis: XChoice;
  /** With xAxis "metric": the metric whose value at each step is the x. */
  xMetric: string;
  /** The y range clipped to the bulk of the data, the points outside marked (lib/chart-marks.ts). */
  clipY: boolean;
}
export const DEFAULT_PANEL_OPTIONS: PanelOptions = { logScale: false, smoothing: 0, xAxis: "step", xMetric: "", clipY: false };

/** A panel the user added (several metrics together). Metric panels are implicit, one per metric. */
export interface CustomPanel {
  id: string;
  logNames: string[];
}

export interface Layout {
  /** Added panels, in the order shown (first section, "Custom panels"). */
  custom: CustomPanel[];
  /** Options by panel ID (a metric panel's ID is its metric name; a custom one's "custom:<n>"). */
  options: [string, PanelOptions][];
  /** Collapsed section names. */
  collapsed: string[];
  /** The visible-run cap. */
  cap: number;
  /**
   * Metric panels the user moved, by ID, in the order they go. One list serves every section: a
   * metric's section follows from its name, so the list's order within a section is that section's
   * order. Panels not listed follow the listed ones of their section, alphabetically.
   */
  order: string[];
  /** Runs folded into groups by config keys or tags (lib/grouping.ts); no keys: every run its own line. */
  grouping: Grouping;
}

export const EMPTY_LAYOUT: Layout = { custom: [], options: [], collapsed: [], cap: DEFAULT_CAP, order: [], grouping: NO_GROUPING };

export const layoutStorageKey = (projectName: string) => `stepwise.workspace.${projectName}`;
export const hiddenRunsStorageKey = (projectName: string) => `stepwise.hiddenRuns.${projectName}`;

const isString = (value: unknown): value is string => typeof value === "string";

function parseOptions(value: unknown): PanelOptions | null {
  if (typeof value !== "object" || value === null) return null;
  const record = value as Partial<Record<keyof PanelOptions, unknown>>;
  const smoothing = typeof record.smoothing === "number" && record.smoothing >= 0 && record.smoothing < 1 ? record.smoothing : 0;
  const xAxis = X_CHOICES.find((choice) => choice === record.xAxis) ?? "step";
  return {
    logScale: record.logScale === true,
    smoothing,
    xAxis,
    xMetric: isString(record.xMetric) ? record.xMetric : "",
    clipY: record.clipY === true,
  };
}

/** A stored layout, or the defaults for whatever part of it is missing or malformed. */
export function parseLayout(text: string | null): Layout {
  let stored: unknown;
  try {
    stored = text === null ? null : JSON.parse(text);
  } catch {
    stored = null;
  }
  if (typeof stored !== "object" || stored === null) return { ...EMPTY_LAYOUT };
  const record = stored as Partial<Record<keyof Layout, unknown>>;
  const custom = (Array.isArray(record.custom) ? record.custom : []).flatMap((panel: unknown): CustomPanel[] => {
    const candidate = panel as Partial<CustomPanel> | null;
    if (!candidate || !isString(candidate.id) || !Array.isArray(candidate.logNames)) return [];
    const logNames = candidate.logNames.filter(isString);
    return logNames.length > 0 ? [{ id: candidate.id, logNames }] : [];
  });
  const options = (Array.isArray(record.options) ? record.options : []).flatMap((entry: unknown): [string, PanelOptions][] => {
    if (!Array.isArray(entry) || !isString(entry[0])) return [];
    const parsed = parseOptions(entry[1]);
    return parsed ? [[entry[0], parsed]] : [];
  });
  const collapsed = (Array.isArray(record.collapsed) ? record.collapsed : []).filter(isString);
  const cap = RUN_CAPS.find((step) => step === record.cap) ?? DEFAULT_CAP;
  const order = [...new Set((Array.isArray(record.order) ? record.order : []).filter(isString))];
  return { custom, options, collapsed, cap, order, grouping: parseGrouping(record.grouping) };
}

export function optionsOf(layout: Layout, panelId: string): PanelOptions {
  return layout.options.find(([id]) => id === panelId)?.[1] ?? DEFAULT_PANEL_OPTIONS;
}

/** The metric a panel's x axis reads, if it is set to another metric and one is chosen. */
export const xMetricOf = (options: PanelOptions): string | null => (options.xAxis === "metric" && options.xMetric ? options.xMetric : null);

/** The metrics a panel's chart reads: its own, and the metric on its x axis if it has one. */
export function panelNeeds(panel: Panel, options: PanelOptions): string[] {
  const xMetric = xMetricOf(options);
  return xMetric ? [...panel.logNames, xMetric] : panel.logNames;
}

export function withOptions(layout: Layout, panelId: string, options: PanelOptions): Layout {
  return { ...layout, options: [...layout.options.filter(([id]) => id !== panelId), [panelId, options]] };
}

export function toggleCollapsed(layout: Layout, section: string): Layout {
  const collapsed = layout.collapsed.includes(section)
    ? layout.collapsed.filter((name) => name !== section)
    : [...layout.collapsed, section];
  return { ...layout, collapsed };
}

export function addCustomPanel(layout: Layout, logNames: string[]): Layout {
  const taken = new Set(layout.custom.map((panel) => panel.id));
  let n = layout.custom.length + 1;
  while (taken.has(`custom:${n}`)) n++;
  return { ...layout, custom: [...layout.custom, { id: `custom:${n}`, logNames: [...new Set(logNames)] }] };
}

export function removeCustomPanel(layout: Layout, panelId: string): Layout {
  return {
    ...layout,
    custom: layout.custom.filter((panel) => panel.id !== panelId),
    options: layout.options.filter(([id]) => id !== panelId),
  };
}

/** Hidden run IDs as stored (a JSON list of integers); anything else reads as none hidden. */
export function parseHiddenRuns(text: string | null): number[] {
  try {
    const stored: unknown = text === null ? [] : JSON.parse(text);
    return Array.isArray(stored) ? stored.filter((id): id is number => Number.isSafeInteger(id)) : [];
  } catch {
    return [];
  }
}

export interface Panel {
  id: string;
  logNames: string[];
  custom: boolean;
}

export const CUSTOM_SECTION = "Custom panels";

/** Metric names in their section's order: the ones the user moved as `order` lists them, then the rest alphabetically. */
function orderedNames(names: readonly string[], order: readonly string[]): string[] {
  const rank = new Map(order.map((id, index) => [id, index]));
  return [...names].sort((a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || a.localeCompare(b));
}

/**
 * The workspace's sections: added panels first, then one panel per metric matching the search,
 * grouped by log group (train, val, then alphabetically), each section in the order the user left
 * it (`layout.order`). An added panel shows when any of its metrics matches.
 */
export function workspaceSections(metricNames: readonly string[], layout: Layout, search: string): [string, Panel[]][] {
  const custom = layout.custom
    .filter((panel) => panel.logNames.some((name) => matchesSearch(name, search)))
    .map((panel) => ({ ...panel, custom: true }));
  const metrics = sectionsOf(
    metricNames.filter((name) => matchesSearch(name, search)),
    (name) => name,
  ).map(([section, names]): [string, Panel[]] => [
    section,
    orderedNames(names, layout.order).map((name) => ({ id: name, logNames: [name], custom: false })),
  ]);
  return custom.length > 0 ? [[CUSTOM_SECTION, custom], ...metrics] : metrics;
}

/**
 * Moves a panel one place earlier (-1) or later (+1) within its section, past the neighbour the
 * user sees: with a search on, that neighbour may sit several places away among the section's
 * panels, and the panel lands just beyond it. At either end of its section it stays (the same
 * layout back). An added panel moves in `custom`; a metric panel's whole section is written into
 * `order`, so it keeps its place as other metrics appear.
 */
export function movePanel(layout: Layout, metricNames: readonly string[], search: string, panelId: string, delta: -1 | 1): Layout {
  const shown = workspaceSections(metricNames, layout, search).find(([, panels]) => panels.some((panel) => panel.id === panelId));
  if (!shown) return layout;
  const [section, panels] = shown;
  const at = panels.findIndex((panel) => panel.id === panelId);
  const neighbour = panels[at + delta];
  if (!neighbour) return layout;
  // The section whole (no search), in its current order.
  const all =
    section === CUSTOM_SECTION
      ? layout.custom.map((panel) => panel.id)
      : (workspaceSections(metricNames, { ...layout, custom: [] }, "")
          .find(([name]) => name === section)?.[1]
          .map((panel) => panel.id) ?? []);
  const without = all.filter((id) => id !== panelId);
  const target = without.indexOf(neighbour.id) + (delta === 1 ? 1 : 0);
  const moved = [...without.slice(0, target), panelId, ...without.slice(target)];
  if (section === CUSTOM_SECTION) {
    const byId = new Map(layout.custom.map((panel) => [panel.id, panel]));
    return { ...layout, custom: moved.map((id) => byId.get(id)!) };
  }
  const inSection = new Set(all);
  return { ...layout, order: [...layout.order.filter((id) => !inSection.has(id)), ...moved] };
}

export interface Line {
  /** Ascending x. */
  x: number[];
  /** The step of each point. */
  steps: number[];
  /** null where the point is not finite (a marker instead) or cannot be drawn on a log scale. */
  y: (number | null)[];
  markers: { x: number; kind: NonFiniteKind }[];
}

/**
 * A series on the chosen x axis: step; seconds since the run started (`startMs`); wall time in
 * seconds since the epoch (uPlot's time scale); or the value of another metric (`xSeries`) at the
 * same step — points at steps where that metric has no finite value are left out.
 */
export function lineOf(series: BatchSeries, options: PanelOptions, startMs: number, xSeries?: BatchSeries): Line {
  let xAt: (index: number) => number | null;
  if (options.xAxis === "step") xAt = (i) => series.steps[i]!;
  else if (options.xAxis === "relative") xAt = (i) => (series.times[i]! - startMs) / 1000;
  else if (options.xAxis === "wall") xAt = (i) => series.times[i]! / 1000;
  else {
    const byStep = new Map<number, number>();
    if (xSeries) for (const [i, step] of xSeries.steps.entries()) if (xSeries.nonFiniteFlags[i] === 0) byStep.set(step, xSeries.values[i]!);
    xAt = (i) => byStep.get(series.steps[i]!) ?? null;
  }
  const points: { x: number; step: number; y: number | null; kind: NonFiniteKind | null }[] = [];
  for (let i = 0; i < series.steps.length; i++) {
    const x = xAt(i);
    if (x === null) continue;
    const kind = nonFiniteKind(series.nonFiniteFlags[i] ?? 0);
    const value = series.values[i]!;
    points.push({ x, step: series.steps[i]!, y: kind || (options.logScale && value <= 0) ? null : value, kind });
  }
  if (options.xAxis !== "step") points.sort((a, b) => a.x - b.x);
  return {
    x: points.map((point) => point.x),
    steps: points.map((point) => point.step),
    y: points.map((point) => point.y),
    markers: points.flatMap((point) => (point.kind ? [{ x: point.x, kind: point.kind }] : [])),
  };
}

/**
 * The step window to fetch again when the x range [min, max] of a panel not drawn against steps is
 * dragged: from the lowest to the highest step of the drawn points inside the range, over every
 * line, widened to the drawn points just beyond it in step order — the drawn points may be a
 * sample, and the fetched window must hold every point whose x falls in the range. (The caller
 * clips the fetched lines to the range.) Null when no drawn point falls in it. Against steps the
 * window is the range itself (series.ts, stepsOfRange).
 */
export function zoomStepWindow(lines: readonly Pick<Line, "x" | "steps">[], min: number, max: number): [number, number] | null {
  let low = Infinity;
  let high = -Infinity;
  for (const line of lines)
    for (let i = 0; i < line.x.length; i++)
      if (line.x[i]! >= min && line.x[i]! <= max) {
        low = Math.min(low, line.steps[i]!);
        high = Math.max(high, line.steps[i]!);
      }
  if (low > high) return null;
  let before = low;
  let beyond = high;
  for (const line of lines) {
    let lineBefore = -Infinity;
    let lineBeyond = Infinity;
    for (const step of line.steps) {
      if (step < low) lineBefore = Math.max(lineBefore, step);
      if (step > high) lineBeyond = Math.min(lineBeyond, step);
    }
    if (lineBefore > -Infinity) before = Math.min(before, lineBefore);
    if (lineBeyond < Infinity) beyond = Math.max(beyond, lineBeyond);
  }
  return [before, beyond];
}

/** A line's points with x in [min, max] (a zoomed panel draws its range, not the whole fetched window). */
export function clipLine(line: Line, min: number, max: number): Line {
  const keep = line.x.flatMap((x, i) => (x >= min && x <= max ? [i] : []));
  return {
    x: keep.map((i) => line.x[i]!),
    steps: keep.map((i) => line.steps[i]!),
    y: keep.map((i) => line.y[i]!),
    markers: line.markers.filter((marker) => marker.x >= min && marker.x <= max),
  };
}

/**
 * Whether the server downsampled a series: more points than buckets, and steps missing between
 * them. (A series of at most 4 × buckets points comes whole, so a sparsely logged one can read as
 * downsampled too; its band is still the true min/max of each x range.)
 */
export function isDownsampled(series: BatchSeries, buckets: number): boolean {
  const count = series.steps.length;
  return count > buckets && series.steps[count - 1]! - series.steps[0]! + 1 > count;
}

/**
 * A faint band between the lowest and highest value of each of `buckets` equal x ranges, for a
 * line the server downsampled (more points than buckets: each bucket kept its first, last, min
 * and max). Null when the line was not downsampled.
 */
export function minMaxBand(line: Line, buckets: number): { x: number[]; lo: number[]; hi: number[] } | null {
  if (line.x.length <= buckets || buckets < 1) return null;
  const first = line.x[0]!;
  const width = (line.x[line.x.length - 1]! - first) / buckets || 1;
  const band = { x: [] as number[], lo: [] as number[], hi: [] as number[] };
  let bucket = -1;
  for (let i = 0; i < line.x.length; i++) {
    const value = line.y[i];
    if (value === null || value === undefined) continue;
    const index = Math.min(buckets - 1, Math.floor((line.x[i]! - first) / width));
    if (index !== bucket) {
      bucket = index;
      band.x.push(line.x[i]!);
      band.lo.push(value);
      band.hi.push(value);
    } else {
      const last = band.x.length - 1;
      band.lo[last] = Math.min(band.lo[last]!, value);
      band.hi[last] = Math.max(band.hi[last]!, value);
    }
  }
  return band;
}

/** Tooltip rows at the hovered x: highest value first; non-finite points (by kind) after, then no value. */
export function sortByValue<T extends { value: number | null; kind?: NonFiniteKind | null }>(rows: readonly T[]): T[] {
  const rank = (row: T) => (row.kind ? 1 : row.value === null ? 2 : 0);
  return [...rows].sort((a, b) => rank(a) - rank(b) || (rank(a) === 0 ? b.value! - a.value! : 0));
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The batch requests for runs × metrics: as few as the batch read's limits allow (at most 200
 * runs and 100 metrics a request, and runs × metrics × (4 × buckets + 3) ≤ 2,000,000 points).
 */
export function batchPlan(
  runIds: readonly number[],
  logNames: readonly string[],
  buckets: number,
): { runIds: number[]; logNames: string[] }[] {
  const plan: { runIds: number[]; logNames: string[] }[] = [];
  if (logNames.length === 0) return plan;
  for (const ids of chunks(runIds, BATCH_MAX_RUNS)) {
    const perRequest = Math.max(
      1,
      Math.min(BATCH_MAX_LOG_NAMES, Math.floor(BATCH_MAX_POINTS / (ids.length * pointsPerSeriesBound(buckets)))),
    );
    for (const names of chunks(logNames, perRequest)) plan.push({ runIds: ids, logNames: names });
  }
  return plan;
}
