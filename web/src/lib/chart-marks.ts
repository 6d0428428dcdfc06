// What a chart marks instead of drawing as a value: where a line on a time axis breaks (a fork's or
// a resumed run's segments, days apart, are not joined), the y range clipped to the bulk of the
// data when a panel asks for it, and which points fall outside that range.

/** A gap in time breaks a line when it is this many times the line's usual spacing… */
export const GAP_FACTOR = 20;
/** …and longer than this (seconds): a quarter-hour pause in a fast run is a gap, a slow run's hourly points are not. */
export const MIN_GAP_SECONDS = 15 * 60;

/**
 * The indices where a new segment of a line starts on a time axis (x in seconds, ascending): where
 * the time since the previous point exceeds both GAP_FACTOR × the line's median spacing (the lower
 * median, so one gap among two spacings still counts) and MIN_GAP_SECONDS. A line of two points has
 * no gap: its one spacing is its usual one.
 */
export function gapStarts(x: readonly number[], factor = GAP_FACTOR, minGap = MIN_GAP_SECONDS): number[] {
  if (x.length < 3) return [];
  const spacings: number[] = [];
  for (let i = 1; i < x.length; i++) spacings.push(x[i]! - x[i - 1]!);
  const sorted = [...spacings].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const threshold = Math.max(factor * median, minGap);
  const starts: number[] = [];
  for (let i = 1; i < x.length; i++) if (x[i]! - x[i - 1]! > threshold) starts.push(i);
  return starts;
}

/** [start, end) index ranges of a line's segments between the given gap starts. */
export function segmentsOf(length: number, starts: readonly number[]): [number, number][] {
  const bounds = [0, ...starts, length];
  const segments: [number, number][] = [];
  for (let i = 1; i < bounds.length; i++) if (bounds[i]! > bounds[i - 1]!) segments.push([bounds[i - 1]!, bounds[i]!]);
  return segments;
}

export interface ClipOptions {
  /** Quantiles of the finite values that bound the bulk (1st and 99th percentile). */
  low: number;
  high: number;
  /** Room added on each side, as a share of the bulk's span. */
  margin: number;
}
export const DEFAULT_CLIP: ClipOptions = { low: 0.01, high: 0.99, margin: 0.1 };

/** The q-quantile of ascending values, interpolated between the two nearest ranks. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const below = Math.floor(at);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (at - below);
}

/**
 * The y range of the bulk of the data: from the `low` to the `high` quantile of the finite values,
 * widened by `margin` of that span on each side (on a log scale all of this in decades, over the
 * positive values). Null when nothing lies outside it (the chart's own range is then right) or
 * there is nothing to clip. A flat bulk gets a span of 10% of its value (or 1) around it.
 */
export function clipRange(
  values: Iterable<number | null | undefined>,
  logScale: boolean,
  options: ClipOptions = DEFAULT_CLIP,
): [number, number] | null {
  const usable: number[] = [];
  for (const value of values)
    if (value !== null && value !== undefined && Number.isFinite(value) && (!logScale || value > 0))
      usable.push(logScale ? Math.log10(value) : value);
  if (usable.length === 0) return null;
  usable.sort((a, b) => a - b);
  const lo = quantile(usable, options.low);
  const hi = quantile(usable, options.high);
  const span = hi - lo || (logScale ? 1 : Math.abs(hi) * 0.1 || 1);
  const range: [number, number] = [lo - options.margin * span, hi + options.margin * span];
  if (usable[0]! >= range[0] && usable[usable.length - 1]! <= range[1]) return null;
  return logScale ? [10 ** range[0], 10 ** range[1]] : range;
}

/** Where a value lies against a clipped range: 1 above it, -1 below it, 0 within (or not a value). */
export function sideOf(value: number | null | undefined, range: readonly [number, number]): -1 | 0 | 1 {
  if (value === null || value === undefined) return 0;
  return value > range[1] ? 1 : value < range[0] ? -1 : 0;
}

/** "3 points above, 1 below the clipped range" (null when none is outside). */
export function outsideNote(above: number, below: number): string | null {
  if (above + below === 0) return null;
  const parts = [above > 0 ? `${above} above` : "", below > 0 ? `${below} below` : ""].filter(Boolean);
  return `${above + below === 1 ? "1 point" : `${above + below} points`} outside the clipped range (${parts.join(", ")})`;
}
