import { Type } from "typebox";
import { SWEEP_DEFAULT_RUNS, SWEEP_MAX_METRICS, SWEEP_MAX_RUNS } from "../../domain/sweep.js";
import { ListRunsQuery } from "./run-list.js";

const { projectName, search, tags, status, filter, sort } = ListRunsQuery.properties;

export const SweepQuery = Type.Object({
  projectName,
  search,
  tags,
  status,
  filter,
  sort,
  limit: Type.Integer({
    minimum: 1,
    maximum: SWEEP_MAX_RUNS,
    default: SWEEP_DEFAULT_RUNS,
    description: "The first runs of the selection read.",
  }),
  metrics: Type.Optional(
    Type.String({
      maxLength: 20_000,
      description: `JSON array of the metric names to summarize for each run (at most ${SWEEP_MAX_METRICS}).`,
    }),
  ),
});

const Summary = Type.Union([
  Type.Object({
    last: Type.Union([Type.Number(), Type.Null()], { description: "The last finite value." }),
    min: Type.Union([Type.Number(), Type.Null()]),
    max: Type.Union([Type.Number(), Type.Null()]),
  }),
  Type.Null({ description: "The run has no point of this metric." }),
]);

export const SweepResponse = Type.Object({
  projectName: Type.String(),
  total: Type.Integer({ description: "Every run the selection holds; `runs` has the first `limit`." }),
  keys: Type.Array(Type.String(), {
    description: "The flattened config keys whose values differ between the runs read (at most 100, in key order).",
  }),
  constantKeys: Type.Array(Type.String(), { description: "The config keys every run read has with the same value." }),
  moreKeys: Type.Integer({ description: "Differing keys past the first 100, left out." }),
  runs: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      displayId: Type.String(),
      status: Type.String(),
      tags: Type.Array(Type.String()),
      config: Type.Record(Type.String(), Type.Any(), { description: "The run's values of `keys`; a key it lacks is absent." }),
      metrics: Type.Record(Type.String(), Summary, { description: "By metric name asked for." }),
    }),
  ),
});
