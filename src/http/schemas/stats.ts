import { Type } from "typebox";
import { AGGREGATIONS, DIRECTIONS } from "../../domain/leaderboard.js";
import { VALUE_FLAGS } from "../../domain/non-finite.js";
import { AnyJson, LogName, ProjectName, RunLogsQuery, RunStatus, Timestamp } from "./common.js";

const RunIdList = Type.String({ maxLength: 20_000, description: "Comma-separated numeric run IDs." });
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

/** The point at the highest step of any kind (docs/api.md, "The end of a series"). */
const LastPoint = Type.Union(
  [
    Type.Object({
      step: Type.Integer(),
      value: Type.Number({ description: "0 when valueFlag names a non-finite kind." }),
      valueFlag: Type.Enum(VALUE_FLAGS, { description: '"NaN", "Inf" or "-Inf" when the series ends non-finite, "" otherwise.' }),
    }),
    Type.Null(),
  ],
  { description: "The last point of any kind; differs from the last finite value when the series ended in NaN or ±Inf." },
);

export const StatisticsQuery = Type.Object(RunLogsQuery);

export const StatisticsResponse = Type.Object({
  runId: Type.Integer(),
  runName: Type.String(),
  projectName: Type.String(),
  url: Type.String(),
  metrics: Type.Array(
    Type.Object({
      logName: Type.String(),
      logGroup: Type.String(),
      count: Type.Integer({ description: "Finite points." }),
      min: NullableNumber,
      max: NullableNumber,
      mean: NullableNumber,
      stddev: Type.Union([Type.Number({ description: "Population standard deviation." }), Type.Null()]),
      last: Type.Union([Type.Object({ step: Type.Integer(), value: Type.Number() }), Type.Null()], {
        description: "The last finite value and its step.",
      }),
      lastPoint: LastPoint,
    }),
  ),
});

export const CompareQuery = Type.Object({ runIds: RunIdList, projectName: ProjectName, logName: LogName });

export const CompareResponse = Type.Object({
  projectName: Type.String(),
  logName: Type.String(),
  comparisonUrl: Type.String(),
  runs: Type.Array(
    Type.Object({
      runId: Type.Integer(),
      runName: Type.String(),
      url: Type.String(),
      status: RunStatus,
      config: AnyJson,
      stats: Type.Union([
        Type.Object({
          count: Type.Integer(),
          min: NullableNumber,
          max: NullableNumber,
          mean: NullableNumber,
          final: Type.Union([Type.Number(), Type.Null()], { description: "The last finite value." }),
          lastPoint: LastPoint,
        }),
        Type.Null(),
      ]),
    }),
  ),
});

export const LeaderboardQuery = Type.Object({
  projectName: ProjectName,
  logName: LogName,
  aggregation: Type.Enum(AGGREGATIONS, { default: "LAST" }),
  direction: Type.Enum(DIRECTIONS, { default: "ASC" }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
});

export const LeaderboardResponse = Type.Object({
  projectName: Type.String(),
  logName: Type.String(),
  aggregation: Type.String(),
  direction: Type.String(),
  runs: Type.Array(
    Type.Object({
      rank: Type.Integer(),
      runId: Type.Integer(),
      runName: Type.String(),
      status: RunStatus,
      url: Type.String(),
      value: Type.Number(),
      lastPoint: LastPoint,
      tags: Type.Array(Type.String()),
      createdAt: Timestamp,
      config: AnyJson,
    }),
  ),
  total: Type.Integer({ description: "Ranked runs (runs with a finite value of the metric)." }),
});

export const MetricNamesQuery = Type.Object({
  projectName: ProjectName,
  search: Type.Optional(Type.String({ maxLength: 255 })),
  runIds: Type.Optional(RunIdList),
  limit: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
});

export const MetricNamesResponse = Type.Object({ projectName: Type.String(), metricNames: Type.Array(Type.String()) });
