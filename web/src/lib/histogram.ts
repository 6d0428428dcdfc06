// Histogram data rows as the pluto-ml client sends them (its `Histogram.to_dict()`, JSON text in a
// data row's `data`): `{"freq": [...], "bins": {"min", "max", "num"}, "shape": "uniform"}` for
// evenly spaced bins, or `{"freq": [...], "bins": [edge, ...], "shape": "generic"}` with one more
// edge than counts. The text comes from the server as any client sent it: everything is checked,
// and a payload that does not hold is an error for that entry, never an exception.

/** A histogram read from a data row: `edges` has one more entry than `counts`, increasing. */
export interface Histogram {
  edges: number[];
  counts: number[];
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A data row's text as the JSON object every logged payload is (a histogram, a table). */
export function parseJsonObject(text: string): Parsed<Record<string, unknown>> {
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return { ok: false, error: "not a JSON object" };
  return { ok: true, value: payload as Record<string, unknown> };
}

/** More bins than a distribution can show (a 4 MiB row could hold ~500,000 counts). */
export const MAX_BINS = 10_000;

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
const isEdge = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Reads one histogram data row's text. */
export function parseHistogram(text: string): Parsed<Histogram> {
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return parsed;
  const { freq, bins } = parsed.value as { freq?: unknown; bins?: unknown };
  if (!Array.isArray(freq) || freq.length === 0) return { ok: false, error: "freq is not a non-empty list of counts" };
  if (freq.length > MAX_BINS) return { ok: false, error: `${freq.length} bins, more than ${MAX_BINS}` };
  if (!freq.every(isCount)) return { ok: false, error: "freq holds a value that is not a count (a finite number ≥ 0)" };
  const counts = freq as number[];
  if (Array.isArray(bins)) {
    if (bins.length !== counts.length + 1) return { ok: false, error: `${bins.length} bin edges for ${counts.length} counts` };
    if (!bins.every(isEdge)) return { ok: false, error: "bins holds an edge that is not a finite number" };
    const edges = bins as number[];
    for (let i = 1; i < edges.length; i++) if (!(edges[i]! > edges[i - 1]!)) return { ok: false, error: "bin edges do not increase" };
    return { ok: true, value: { edges, counts } };
  }
  if (typeof bins !== "object" || bins === null) return { ok: false, error: "bins is neither {min, max, num} nor a list of edges" };
  const { min, max, num } = bins as { min?: unknown; max?: unknown; num?: unknown };
  if (!isEdge(min) || !isEdge(max)) return { ok: false, error: "bins.min or bins.max is not a finite number" };
  if (num !== undefined && num !== counts.length) return { ok: false, error: `bins.num is ${String(num)} for ${counts.length} counts` };
  // One value logged (min = max) is a single bin of width 0: widened so it has a place on the axis.
  const [low, high] = max > min ? [min, max] : max === min ? [min - 0.5, min + 0.5] : [Number.NaN, Number.NaN];
  if (Number.isNaN(low)) return { ok: false, error: "bins.max is below bins.min" };
  // In halves: `high - low` overflows to Infinity for edges near ±1.8e308, the halves never do.
  const half = (high / 2 - low / 2) / counts.length;
  const edges = Array.from({ length: counts.length + 1 }, (_, i) => (i === counts.length ? high : 2 * (low / 2 + i * half)));
  return { ok: true, value: { edges, counts } };
}

/** The total count of a histogram. */
export const totalCount = (histogram: Histogram) => histogram.counts.reduce((sum, count) => sum + count, 0);

/**
 * At most `max` indices of `length` items, evenly spaced, the first and the last always among
 * them (a heatmap of 100,000 steps draws ~300 columns; the newest step is never dropped).
 */
export function sampleIndices(length: number, max: number): number[] {
  if (length <= 0 || max <= 0) return [];
  if (length <= max) return Array.from({ length }, (_, i) => i);
  if (max === 1) return [length - 1];
  const picked = new Set<number>();
  for (let i = 0; i < max; i++) picked.add(Math.round((i * (length - 1)) / (max - 1)));
  return [...picked].sort((a, b) => a - b);
}

/** Steps × value bins: `cells[column * rows + row]` is the share of a step's count in that value bin (row 0 lowest). */
export interface Heatmap {
  steps: number[];
  rows: number;
  low: number;
  high: number;
  cells: Float64Array;
  /** The largest cell: colours scale to it. */
  peak: number;
}

/**
 * Histograms over steps on one grid: each step's counts spread onto `rows` common value bins
 * spanning every histogram's range (a count is shared between the bins its own bin overlaps, in
 * proportion), as a share of that step's total so steps with more samples do not outshine the rest.
 */
export function heatmapOf(series: readonly { step: number; histogram: Histogram }[], rows: number): Heatmap | undefined {
  if (series.length === 0 || rows <= 0) return undefined;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const { histogram } of series) {
    low = Math.min(low, histogram.edges[0]!);
    high = Math.max(high, histogram.edges.at(-1)!);
  }
  const cells = new Float64Array(series.length * rows);
  let peak = 0;
  series.forEach(({ histogram }, column) => {
    const total = totalCount(histogram);
    if (total === 0) return;
    const { edges, counts } = histogram;
    for (let bin = 0; bin < counts.length; bin++) {
      const count = counts[bin]!;
      if (count === 0) continue;
      const from = positionOf(edges[bin]!, low, high) * rows;
      const to = positionOf(edges[bin + 1]!, low, high) * rows;
      const width = to - from;
      for (let row = Math.max(0, Math.floor(from)); row < Math.min(rows, Math.ceil(to)); row++) {
        const overlap = width === 0 ? 1 : (Math.min(to, row + 1) - Math.max(from, row)) / width;
        const cell = column * rows + row;
        if (overlap > 0) cells[cell] = (cells[cell] ?? 0) + (count * overlap) / total;
      }
    }
    for (let row = 0; row < rows; row++) peak = Math.max(peak, cells[column * rows + row] ?? 0);
  });
  return { steps: series.map(({ step }) => step), rows, low, high, cells, peak };
}

/**
 * The cell under a point of the drawn heatmap, given as fractions of its width and height from the
 * top left (row 0, the lowest values, is drawn at the bottom); undefined outside it.
 */
export function cellAt(map: Heatmap, x: number, y: number) {
  if (!(x >= 0 && x < 1 && y >= 0 && y < 1)) return undefined;
  const column = Math.floor(x * map.steps.length);
  const row = map.rows - 1 - Math.floor(y * map.rows);
  const width = (map.high / 2 - map.low / 2) / map.rows;
  return {
    step: map.steps[column]!,
    column,
    from: 2 * (map.low / 2 + row * width),
    to: row === map.rows - 1 ? map.high : 2 * (map.low / 2 + (row + 1) * width),
    share: map.cells[column * map.rows + row] ?? 0,
  };
}

/** Where `value` lies from `low` (0) to `high` (1), in halves so that ±1.8e308 never overflow the span. */
export const positionOf = (value: number, low: number, high: number) => (value / 2 - low / 2) / (high / 2 - low / 2);

/** A colour for a share of the peak, 0 → the background's near-white, 1 → deep blue (one hue, ordered by lightness). */
export function heatColor(fraction: number): string {
  const t = Math.max(0, Math.min(1, fraction));
  const from = [239, 246, 255];
  const to = [30, 58, 138];
  const channel = (i: number) => Math.round(from[i]! + (to[i]! - from[i]!) * Math.sqrt(t));
  return `rgb(${channel(0)}, ${channel(1)}, ${channel(2)})`;
}
