/**
 * The bounds of one batch read of sampled series (docs/api.md, "Sampled series of many runs"): many runs ×
 * many metrics in one request, each series sampled as /api/runs/metrics samples it with `limit` =
 * 4 × buckets (domain/sampling.ts). The work and the response grow with runs × metrics × points
 * per series, so that product is capped before anything is read.
 */
export const BATCH_MAX_RUNS = 200;
export const BATCH_MAX_LOG_NAMES = 100;
export const BATCH_MAX_BUCKETS = 1000;
export const BATCH_DEFAULT_BUCKETS = 250;
/**
 * The most points a batch may ask for: runs × metrics × pointsPerSeriesBound(buckets). At about
 * 40 bytes of JSON per point (step, value, flags, time) that is some 80 MB at worst; a typical
 * workspace (20 runs × 50 metrics × 250 buckets ≈ 1M) fits.
 */
export const BATCH_MAX_POINTS = 2_000_000;

/** The sampler's point limit for `buckets` buckets: it cuts the window into limit / 4 buckets. */
export function sampleLimitOf(buckets: number): number {
  return 4 * buckets;
}

/**
 * What one series can hold at most: four points a bucket (first, last, min, max), and room for
 * one of each non-finite kind (the sampler itself never exceeds sampleLimitOf).
 */
export function pointsPerSeriesBound(buckets: number): number {
  return 4 * buckets + 3;
}

/** Why a batch is too large, or undefined when it fits within BATCH_MAX_POINTS. */
export function batchTooLarge(runs: number, logNames: number, buckets: number): string | undefined {
  const points = runs * logNames * pointsPerSeriesBound(buckets);
  if (points <= BATCH_MAX_POINTS) return undefined;
  return (
    `batch too large: ${runs} runs × ${logNames} logNames × ${pointsPerSeriesBound(buckets)} points per series (4 × buckets + 3) ` +
    `= ${points} points, more than ${BATCH_MAX_POINTS}; ask for fewer runs, logNames or buckets`
  );
}

/**
 * The buckets a client overlaying `runCount` runs asks for per series (the web UI's workspace
 * panels; each bucket keeps about 4 points). BATCH_DEFAULT_BUCKETS up to 50 runs, then fewer so
 * that a panel stays near 12,500 buckets (~50,000 points) across its runs: 62 at 200 runs, where
 * 200 overlaid lines show no finer detail, and the read and the drawing cost about a quarter
 * (docs/benchmarks.md, "Workspace page"). Spikes and non-finite points survive any bucket count
 * (domain/sampling.ts); a zoom reads its window again.
 */
export function bucketsForRuns(runCount: number): number {
  return Math.max(MIN_OVERLAY_BUCKETS, Math.min(BATCH_DEFAULT_BUCKETS, Math.floor(OVERLAY_BUCKETS / Math.max(1, runCount))));
}
const MIN_OVERLAY_BUCKETS = 50;
const OVERLAY_BUCKETS = 12_500;
