import { Type } from "typebox";
import { BATCH_DEFAULT_BUCKETS, BATCH_MAX_BUCKETS, BATCH_MAX_LOG_NAMES, BATCH_MAX_RUNS } from "../../domain/metric-batch.js";
import { METRIC_PAGE_BYTES, METRIC_PAGE_METRICS, METRIC_READ_NAMES } from "../../domain/metric-pages.js";
import { VALUE_FLAGS } from "../../domain/non-finite.js";
import { LogName, ProjectName, RunId, RunLogsQuery, Step, Timestamp } from "./common.js";

const NonFiniteFlags = Type.Integer({ description: "bit0 NaN, bit1 +Infinity, bit2 -Infinity; when non-zero, value is 0." });

export const MetricsQuery = Type.Object({
  ...RunLogsQuery,
  logNames: Type.Optional(
    Type.Array(LogName, {
      maxItems: METRIC_READ_NAMES,
      description: "Only these metrics (repeat the parameter: logNames=a&logNames=b); with logName or logGroup, metrics that match all.",
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 2000, description: "Points per metric." }),
  stepMin: Type.Optional(Step),
  stepMax: Type.Optional(Step),
  offset: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    default: 0,
    description: "Metrics to skip, in name order: the nextOffset of the previous page.",
  }),
});

export const MetricsResponse = Type.Object({
  metrics: Type.Array(
    Type.Object({
      logName: Type.String(),
      logGroup: Type.String(),
      time: Timestamp,
      step: Type.Integer(),
      value: Type.Number(),
      nonFiniteFlags: NonFiniteFlags,
      valueFlag: Type.Enum(VALUE_FLAGS, {
        description: '"NaN", "Inf" or "-Inf" for a non-finite value (then value is 0), "" for a finite one.',
      }),
    }),
  ),
  nextOffset: Type.Union([Type.Integer(), Type.Null()], {
    description: `The offset of the next page, null after the last one. A page holds whole metrics in name order, at most ${METRIC_PAGE_METRICS}, ending before the metric whose sample could take it past ${METRIC_PAGE_BYTES} bytes of JSON, and at least one.`,
  }),
});

export const RawMetricsQuery = Type.Object({
  runId: RunId,
  projectName: ProjectName,
  logName: LogName,
  stepMin: Type.Optional(Step),
  stepMax: Type.Optional(Step),
  limit: Type.Integer({ minimum: 1, maximum: 50_000, default: 10_000 }),
});

export const RawMetricsResponse = Type.Object({
  rows: Type.Array(
    Type.Object({
      logGroup: Type.String(),
      step: Type.Integer(),
      time: Type.String({ description: "Server-side write time." }),
      value: Type.Number({ description: "0 when nonFiniteFlags is non-zero." }),
      nonFiniteFlags: NonFiniteFlags,
    }),
  ),
  truncated: Type.Boolean({ description: "true exactly when the row count equals limit." }),
});

export const MetricsBatchBody = Type.Object(
  {
    projectName: ProjectName,
    runIds: Type.Array(RunId, {
      minItems: 1,
      maxItems: BATCH_MAX_RUNS,
      description: "The runs, in the order the series come back; a repeated ID counts once.",
    }),
    logNames: Type.Array(LogName, {
      minItems: 1,
      maxItems: BATCH_MAX_LOG_NAMES,
      description: "The metrics of each run, in the order the series come back; a repeated name counts once.",
    }),
    stepMin: Type.Optional(Step),
    stepMax: Type.Optional(Step),
    buckets: Type.Integer({
      minimum: 1,
      maximum: BATCH_MAX_BUCKETS,
      default: BATCH_DEFAULT_BUCKETS,
      description:
        "Buckets per series: the sample of /api/runs/metrics with limit = 4 × buckets (a series within that many points comes whole).",
    }),
  },
  { additionalProperties: false },
);

export const MetricsBatchResponse = Type.Object({
  series: Type.Array(
    Type.Object({
      runId: Type.Integer(),
      logName: Type.String(),
      steps: Type.Array(Type.Integer(), { description: "Ascending." }),
      values: Type.Array(Type.Number(), { description: "0 where nonFiniteFlags is non-zero." }),
      nonFiniteFlags: Type.Array(NonFiniteFlags),
      times: Type.Array(Type.Integer(), { description: "Client time of each point, epoch milliseconds." }),
    }),
    {
      description:
        "One entry per (run, logName) with points in the window, in runIds order then logNames order; the arrays are parallel, one element per point.",
    },
  ),
  missingRunIds: Type.Array(Type.Integer(), {
    description: "Requested runs that are not in the project (unknown, of another project or of another organization), in request order.",
  }),
});
