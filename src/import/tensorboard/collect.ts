import { MAX_EPOCH_MS } from "../../domain/time.js";
import { orderByStep } from "../../ingest/decode.js";
import type { DataRow, MetricSeries } from "../../store/store.js";
import type { EventVisitor, HparamValue, TbHistogram } from "./events.js";

/**
 * What the event files of one run hold, gathered for writing (docs/import.md has the mapping):
 * scalars become metric series, histograms HISTOGRAM data rows, text TEXT data rows, images files,
 * the hparams plugin's session start the run's config; the first and last wall time its timings.
 * Files are visited in name order (TensorBoard names them by creation time), so when a restart
 * writes a step again the later file's value wins (`series`, replace-step).
 */
export interface CollectedImage {
  tag: string;
  step: number;
  time: number;
  bytes: Buffer;
}

/** The name TensorBoard's text plugin gives a tag (`<tag>/text_summary`, tensorboardX and TF1) is imported without its suffix. */
const TEXT_SUFFIX = "/text_summary";

export class RunCollector implements EventVisitor {
  private readonly scalars = new Map<string, { steps: number[]; values: number[]; times: number[] }>();
  readonly rows: DataRow[] = [];
  readonly images: CollectedImage[] = [];
  /** The hparams plugin's hyperparameters (the run's config), when the files hold a session start. */
  hyperparameters: Map<string, HparamValue> | undefined;
  /** Set while reading the files of an add_scalars sub-directory: its tag, and the metric name it is imported as. */
  subSeries: { tag: string; logName: string } | undefined;
  firstTime = Number.POSITIVE_INFINITY;
  lastTime = Number.NEGATIVE_INFINITY;
  histograms = 0;
  texts = 0;
  /** Values left out: their kind (audio, graph, a step outside 0..2^53−1) → how many. */
  readonly notImportedKinds = new Map<string, number>();

  /** The time in epoch ms, or undefined (counted) when the step or time cannot be stored. */
  private accept(step: number, wallTime: number): number | undefined {
    if (!Number.isSafeInteger(step) || step < 0) {
      this.notImported("step outside 0..2^53−1");
      return undefined;
    }
    const time = Math.round(wallTime * 1000);
    if (!(time >= 0 && time <= MAX_EPOCH_MS)) {
      this.notImported("wall time outside the epoch range");
      return undefined;
    }
    if (time < this.firstTime) this.firstTime = time;
    if (time > this.lastTime) this.lastTime = time;
    return time;
  }

  scalar(tag: string, step: number, wallTime: number, value: number): void {
    const time = this.accept(step, wallTime);
    if (time === undefined) return;
    // tensorboardX writes add_scalars("loss", {"train": …}) under <run>/loss/train with the tag "loss".
    const logName = this.subSeries?.tag === tag ? this.subSeries.logName : tag;
    let series = this.scalars.get(logName);
    if (!series) {
      series = { steps: [], values: [], times: [] };
      this.scalars.set(logName, series);
    }
    series.steps.push(step);
    series.values.push(value);
    series.times.push(time);
  }

  histogram(tag: string, step: number, wallTime: number, histogram: TbHistogram): void {
    const time = this.accept(step, wallTime);
    if (time === undefined) return;
    const data = histogramRow(histogram);
    if (data === undefined) {
      this.notImported("histogram without buckets");
      return;
    }
    this.rows.push({ time, step, logName: tag, dataType: "HISTOGRAM", data });
    this.histograms++;
  }

  image(tag: string, step: number, wallTime: number, bytes: Buffer): void {
    const time = this.accept(step, wallTime);
    if (time === undefined) return;
    this.images.push({ tag, step, time, bytes });
  }

  text(tag: string, step: number, wallTime: number, text: string): void {
    const time = this.accept(step, wallTime);
    if (time === undefined) return;
    const logName = tag.endsWith(TEXT_SUFFIX) ? tag.slice(0, -TEXT_SUFFIX.length) : tag;
    this.rows.push({ time, step, logName, dataType: "TEXT", data: text });
    this.texts++;
  }

  hparams(values: Map<string, HparamValue>): void {
    this.hyperparameters = new Map([...(this.hyperparameters ?? []), ...values]);
  }

  notImported(kind: string): void {
    this.notImportedKinds.set(kind, (this.notImportedKinds.get(kind) ?? 0) + 1);
  }

  /** The metric series in step order, one point per step (the last written wins). */
  series(): MetricSeries[] {
    return [...this.scalars].map(([logName, s]) => orderByStep({ logName, ...s }));
  }
}

/** Edges past this are TensorFlow's ±DBL_MAX sentinels of its default buckets, not data. */
const HUGE = 1e300;

/**
 * A HISTOGRAM data row's JSON (the `{"freq", "bins": [edges], "shape": "generic"}` form the web UI
 * reads, web/src/lib/histogram.ts) from a HistogramProto, whose bucket i counts the values up to
 * bucketLimits[i]. Empty buckets at either end are dropped (TensorFlow's default buckets span
 * ±1e20 in ~1,500 buckets); an edge at a ±DBL_MAX sentinel becomes the histogram's min or max.
 * The proto's min, max, num, sum and sum of squares are kept beside. Undefined without buckets.
 */
export function histogramRow(h: TbHistogram): string | undefined {
  const n = Math.min(h.bucketLimits.length, h.buckets.length);
  if (n === 0) return undefined;
  let first = 0;
  while (first < n - 1 && h.buckets[first] === 0) first++;
  let last = n - 1;
  while (last > first && h.buckets[last] === 0) last--;
  const limits = h.bucketLimits;
  let left: number;
  if (first > 0) left = limits[first - 1]!;
  else if (h.min < limits[0]!) left = h.min;
  else left = limits[0]! - (n > 1 ? limits[1]! - limits[0]! : 1);
  if (!Number.isFinite(left) || Math.abs(left) > HUGE) left = h.min;
  const clamp = (edge: number) => (Number.isFinite(edge) && Math.abs(edge) <= HUGE ? edge : edge < 0 ? h.min : h.max);
  const edges = [left];
  const freq: number[] = [];
  // The web UI wants strictly increasing edges: a bucket left without width by the clamping
  // (a ±DBL_MAX sentinel beside the min or max) gives its count to the next bucket.
  let carried = 0;
  for (let i = first; i <= last; i++) {
    const edge = clamp(limits[i]!);
    if (!(edge > edges.at(-1)!)) {
      carried += h.buckets[i]!;
      continue;
    }
    edges.push(edge);
    freq.push(h.buckets[i]! + carried);
    carried = 0;
  }
  if (freq.length === 0) {
    edges.push(left + Math.max(Math.abs(left) * 1e-9, 1e-9));
    freq.push(carried);
  } else freq[freq.length - 1]! += carried;
  return JSON.stringify({
    freq,
    bins: edges,
    shape: "generic",
    min: h.min,
    max: h.max,
    num: h.num,
    sum: h.sum,
    sum_squares: h.sumSquares,
  });
}
