// The axes of the sweep analysis (parallel coordinates and scatter; issue 23, item 1) and its
// brushes. An axis is a config key or a metric's last value; numbers lie on a linear or (spread
// over three decades or more, all positive, like a learning rate) logarithmic scale, anything else
// (strings, booleans, a mix) on evenly spaced levels; runs without a value sit on a "—" slot at the
// bottom, never dropped. A brush keeps a range (numbers) or levels (the rest), and whether it takes
// the missing slot, in data terms, so it reads as a run filter (docs/semantics.md, Run filters):
// the table and the charts follow it through the page's filter.

import { formatValue } from "./format.ts";
/** A run as the analysis reads it: its config values of the differing keys and its metrics' last values. */
export interface SweepRow {
  id: number;
  config: Readonly<Record<string, unknown>>;
  metrics: Readonly<Record<string, { last: number | null } | null>>;
}

export interface Axis {
  /** `config.<key>` or `metric.<name>`. */
  id: string;
  label: string;
  kind: "numeric" | "categorical";
  log: boolean;
  min: number;
  max: number;
  /** Categorical: the distinct values (JSON identities, sorted) and how each shows. */
  levels: { identity: string; text: string; value: unknown }[];
  /** Whether some run lacks a value: the axis then has a "—" slot at the bottom. */
  missing: boolean;
}

export const configAxisId = (key: string) => `config.${key}`;
export const metricAxisId = (name: string) => `metric.${name}`;

/** A run's value on an axis (undefined: missing). Own keys only: a key is user data. */
export function valueOn(row: SweepRow, axisId: string): unknown {
  if (axisId.startsWith("metric.")) {
    const name = axisId.slice("metric.".length);
    const summary = Object.hasOwn(row.metrics, name) ? row.metrics[name] : null;
    return summary?.last ?? undefined;
  }
  const key = axisId.slice("config.".length);
  const value = Object.hasOwn(row.config, key) ? row.config[key] : undefined;
  return value === null ? undefined : value;
}

export function axisOf(id: string, rows: readonly SweepRow[]): Axis {
  const label = id.slice(id.indexOf(".") + 1);
  const values = rows.map((row) => valueOn(row, id));
  const present = values.filter((value) => value !== undefined);
  const missing = present.length < values.length;
  if (present.length > 0 && present.every((value) => typeof value === "number" && Number.isFinite(value))) {
    const numbers = present as number[];
    const min = Math.min(...numbers);
    const max = Math.max(...numbers);
    return { id, label, kind: "numeric", log: min > 0 && max / min >= 1000, min, max, levels: [], missing };
  }
  const identities = [...new Set(present.map((value) => JSON.stringify(value)))].sort();
  const levels = identities.map((identity) => {
    const value: unknown = JSON.parse(identity);
    return { identity, text: formatValue(value), value };
  });
  return { id, label, kind: "categorical", log: false, min: 0, max: Math.max(0, levels.length - 1), levels, missing };
}

/** Where the missing slot sits, and where the values start above it (0 is the bottom, 1 the top). */
const MISSING_AT = 0;
const VALUES_FROM = 0.12;

/** A value's position on its axis, 0 (bottom) to 1 (top); the missing slot for undefined. */
export function positionOf(axis: Axis, value: unknown): number {
  const from = axis.missing ? VALUES_FROM : 0;
  if (value === undefined) return MISSING_AT;
  if (axis.kind === "numeric") {
    if (typeof value !== "number") return MISSING_AT;
    const t = axis.log ? Math.log10(value / axis.min) / Math.log10(axis.max / axis.min) : (value - axis.min) / (axis.max - axis.min);
    return from + (1 - from) * (Number.isFinite(t) ? t : 0.5);
  }
  const index = axis.levels.findIndex((level) => level.identity === JSON.stringify(value));
  return from + (1 - from) * (axis.levels.length === 1 ? 0.5 : index / (axis.levels.length - 1));
}

/** The ticks an axis shows: [position, text]. */
export function ticksOf(axis: Axis, format: (value: number) => string): [number, string][] {
  const ticks: [number, string][] = axis.missing ? [[MISSING_AT, "—"]] : [];
  if (axis.kind === "categorical")
    return [...ticks, ...axis.levels.map((level): [number, string] => [positionOf(axis, level.value), level.text])];
  if (axis.min === axis.max) return [...ticks, [positionOf(axis, axis.min), format(axis.min)]];
  if (axis.log) {
    // Whole decades within the range (a learning rate reads 0.0001, 0.001 …), and the ends.
    const values = new Set([axis.min, axis.max]);
    for (let exponent = Math.ceil(Math.log10(axis.min)); exponent <= Math.floor(Math.log10(axis.max)); exponent++)
      values.add(Number(`1e${exponent}`));
    const sorted = [...values].sort((a, b) => a - b).filter((value, i, all) => i === 0 || value / all[i - 1]! > 1.5);
    return [...ticks, ...sorted.map((value): [number, string] => [positionOf(axis, value), format(value)])];
  }
  const count = 5;
  for (let k = 0; k < count; k++) {
    const value = axis.min + ((axis.max - axis.min) * k) / (count - 1);
    ticks.push([positionOf(axis, value), format(value)]);
  }
  return ticks;
}

/** A brush on one axis, in data terms: a range of numbers, or levels; and whether it takes runs without a value. */
export interface Brush {
  axis: string;
  range?: [number, number];
  values?: unknown[];
  missing?: boolean;
}

/** How far past its ends a brush reaches (in axis heights): a line at an axis's end is hard to start a drag on. */
const BRUSH_REACH = 0.02;

/** The brush that spans positions [from, to] (any order) of an axis, and a little past them. */
export function brushOf(axis: Axis, from: number, to: number): Brush {
  const lo = Math.max(0, Math.min(from, to) - BRUSH_REACH);
  const hi = Math.min(1, Math.max(from, to) + BRUSH_REACH);
  const brush: Brush = { axis: axis.id };
  if (axis.missing && lo <= MISSING_AT) brush.missing = true;
  if (axis.kind === "categorical")
    brush.values = axis.levels.filter((level) => within(positionOf(axis, level.value), lo, hi)).map((level) => level.value);
  else {
    const base = axis.missing ? VALUES_FROM : 0;
    const valueAt = (position: number) => {
      const t = Math.min(1, Math.max(0, (position - base) / (1 - base)));
      return axis.log ? axis.min * (axis.max / axis.min) ** t : axis.min + (axis.max - axis.min) * t;
    };
    if (hi >= base) brush.range = [valueAt(Math.max(lo, base)), valueAt(hi)];
  }
  return brush;
}

const within = (position: number, lo: number, hi: number) => position >= lo - 1e-9 && position <= hi + 1e-9;

/** Whether a run is within a brush. */
export function inBrush(row: SweepRow, brush: Brush): boolean {
  const value = valueOn(row, brush.axis);
  if (value === undefined) return brush.missing === true;
  if (brush.range) return typeof value === "number" && value >= brush.range[0] * (1 - 1e-12) && value <= brush.range[1] * (1 + 1e-12);
  return (brush.values ?? []).some((level) => JSON.stringify(level) === JSON.stringify(value));
}

/** The run filter field of an axis: a config key, or a metric's last finite value. */
const fieldOf = (axisId: string) => (axisId.startsWith("metric.") ? `summaryMetrics.${axisId.slice("metric.".length)}` : axisId);

/** The brushes as a run filter (every brush must hold); null without brushes. */
export function brushFilter(brushes: readonly Brush[]): Record<string, unknown> | null {
  if (brushes.length === 0) return null;
  const terms = brushes.map((brush) => {
    const field = fieldOf(brush.axis);
    const conditions: Record<string, unknown>[] = [];
    if (brush.range) conditions.push({ [field]: { $gte: brush.range[0], $lte: brush.range[1] } });
    if (brush.values && brush.values.length > 0) conditions.push({ [field]: { $in: brush.values } });
    if (brush.missing) conditions.push({ [field]: null });
    // A brush over nothing keeps nothing (a filter that cannot match), not everything.
    if (conditions.length === 0) return { $and: [{ [field]: null }, { $not: { [field]: null } }] };
    return conditions.length === 1 ? conditions[0]! : { $or: conditions };
  });
  return terms.length === 1 ? terms[0]! : { $and: terms };
}

/** Brushes as kept in the URL (`brush`): anything malformed is left out. */
export function parseBrushes(text: string | null): Brush[] {
  if (!text) return [];
  try {
    const stored: unknown = JSON.parse(text);
    if (!Array.isArray(stored)) return [];
    return stored.flatMap((item): Brush[] => {
      if (typeof item !== "object" || item === null) return [];
      const { axis, range, values, missing } = item as Record<string, unknown>;
      if (typeof axis !== "string" || !(axis.startsWith("config.") || axis.startsWith("metric."))) return [];
      const brush: Brush = { axis };
      if (Array.isArray(range) && range.length === 2 && range.every((n) => typeof n === "number" && Number.isFinite(n)))
        brush.range = [range[0] as number, range[1] as number];
      if (Array.isArray(values)) brush.values = values;
      if (missing === true) brush.missing = true;
      return [brush];
    });
  } catch {
    return [];
  }
}

/** The page's filter and the brushes' together, as the filter text the run list takes. */
export function withBrushes(filter: string, brushes: readonly Brush[]): string {
  const brushed = brushFilter(brushes);
  if (!brushed) return filter;
  if (filter.trim() === "") return JSON.stringify(brushed);
  try {
    return JSON.stringify({ $and: [JSON.parse(filter), brushed] });
  } catch {
    return filter; // a malformed filter is the run list's to refuse, with its message
  }
}
