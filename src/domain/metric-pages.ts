/**
 * The bounds of one /metrics page over many metrics (docs/api.md, "Pages of metrics"): whole
 * metrics in name order, cut by domain/paging.ts's takePage at METRIC_PAGE_METRICS metrics or
 * before the metric whose sample could take the page past METRIC_PAGE_BYTES of JSON. The budget
 * is half that of text pages: a point is a small object to build and serialize, which costs more
 * per byte than a long stored string.
 */
export const METRIC_PAGE_BYTES = 4 * 1024 * 1024;
export const METRIC_PAGE_METRICS = 1000;
/** The most metrics one /metrics request can name with `logNames`. */
export const METRIC_READ_NAMES = 500;

// TextEncoder rather than Buffer: the UI type-checks the schemas that import this module, without Node's types.
const utf8 = new TextEncoder();

/**
 * An upper estimate of one point's JSON in a /metrics response: its fixed fields at their longest
 * (an ISO time, a 16-digit step, a 24-character value, the flags) and its two names as JSON strings.
 */
export function pointJsonBytes(logName: string, logGroup: string): number {
  return 160 + utf8.encode(JSON.stringify(logName)).length + utf8.encode(JSON.stringify(logGroup)).length;
}

/**
 * An upper estimate of a metric's sample in JSON, known before sampling: a sample has at most
 * `limit` points, and no more than the metric has.
 */
export function sampleJsonBytes(
  metric: { logName: string; logGroup: string; count: number; nonFiniteCount: number },
  limit: number,
): number {
  return Math.min(limit, metric.count + metric.nonFiniteCount) * pointJsonBytes(metric.logName, metric.logGroup);
}
