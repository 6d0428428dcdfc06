import { Type } from "typebox";
import { LogName, ProjectName, RunId, RunLogsQuery, Step, Timestamp } from "./common.js";

const NonFiniteFlags = Type.Integer({ description: "bit0 NaN, bit1 +Infinity, bit2 -Infinity; when non-zero, value is 0." });

export const MetricsQuery = Type.Object({
  ...RunLogsQuery,
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 2000, description: "Points per metric." }),
  stepMin: Type.Optional(Step),
  stepMax: Type.Optional(Step),
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
    }),
  ),
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
