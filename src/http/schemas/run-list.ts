import { Type } from "typebox";
import { FIELD_FILTER_DATA_TYPES, FIELD_FILTER_OPERATORS } from "../../domain/field-filter.js";
import { VALUE_FLAGS } from "../../domain/non-finite.js";
import { RUN_FILTER_GRAMMAR } from "../../domain/run-filter.js";
import { NullableTimestamp, ProjectName, RunStatus, Timestamp } from "./common.js";

const enumArray = (values: readonly string[]) => Type.Array(Type.Enum(values as string[]));

/** The names a run filter may use (docs/semantics.md, Run filters), exactly; published as a component of the OpenAPI document. */
export const RunFilterGrammar = Type.Object(
  {
    booleanOperators: enumArray(RUN_FILTER_GRAMMAR.booleanOperators),
    leafOperators: enumArray(RUN_FILTER_GRAMMAR.leafOperators),
    fields: enumArray(RUN_FILTER_GRAMMAR.fields),
    fieldPrefixes: enumArray(RUN_FILTER_GRAMMAR.fieldPrefixes),
  },
  {
    title: "RunFilterGrammar",
    description: "The operators, fields and field prefixes of the `filter` parameter of /api/runs/list (MongoDB-style).",
  },
);

/** One term of the `fieldFilters` parameter (docs/semantics.md, Run filters). */
export const FieldFilterTerm = Type.Object(
  {
    source: Type.Enum(["config", "systemMetadata"]),
    key: Type.String(),
    dataType: Type.Enum(FIELD_FILTER_DATA_TYPES as unknown as string[]),
    operator: Type.Enum(FIELD_FILTER_OPERATORS as unknown as string[]),
    values: Type.Array(Type.Any({ description: "Any JSON value or null." })),
  },
  { title: "FieldFilterTerm" },
);

export const ListRunsQuery = Type.Object({
  projectName: ProjectName,
  search: Type.Optional(Type.String({ maxLength: 255, description: "Case-insensitive substring of the run name." })),
  tags: Type.Optional(Type.String({ description: "Comma-separated; runs with ANY of the tags." })),
  status: Type.Optional(Type.String({ description: "Comma-separated statuses (or finished, crashed, killed)." })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
  includeFieldValues: Type.Optional(Type.String({ description: "`true` or `1` attach _flatConfig and _flatSystemMetadata." })),
  visibleColumns: Type.Optional(
    Type.String({ description: "JSON array of {source: config|systemMetadata, key}: the field values to attach." }),
  ),
  includeDiverged: Type.Optional(
    Type.String({
      description: "`true` or `1` attach divergedMetrics: the metrics of each run whose series ended in NaN or ±Inf.",
    }),
  ),
  fieldFilters: Type.Optional(Type.String({ description: "JSON array of FieldFilterTerm; every term must hold." })),
  filter: Type.Optional(
    Type.String({ description: "JSON run filter over the names of RunFilterGrammar ($and/$or/$not, $eq ... $regex)." }),
  ),
  sort: Type.Optional(
    Type.String({
      description:
        "createdAt, updatedAt, name, status, config.<key>, systemMetadata.<key> or summary_metrics.<name>; prefix - for descending. Default -createdAt.",
    }),
  ),
});

/** A metric whose last point is NaN or ±Inf (docs/api.md, "The end of a series"). */
const DivergedMetric = Type.Object({
  logName: Type.String(),
  step: Type.Integer({ description: "The step of the last point." }),
  valueFlag: Type.Enum(
    VALUE_FLAGS.filter((flag) => flag !== ""),
    { description: '"NaN", "Inf" or "-Inf".' },
  ),
});

const FlatValues = Type.Record(Type.String(), Type.Unsafe<unknown>({ description: "Any JSON value or null." }));

export const ListRunsResponse = Type.Object({
  runs: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      number: Type.Union([Type.Integer(), Type.Null()]),
      displayId: Type.Union([Type.String(), Type.Null()]),
      projectName: Type.String(),
      status: RunStatus,
      tags: Type.Array(Type.String()),
      createdAt: Timestamp,
      updatedAt: Timestamp,
      statusUpdated: NullableTimestamp,
      _flatConfig: Type.Optional(FlatValues),
      _flatSystemMetadata: Type.Optional(FlatValues),
      divergedMetrics: Type.Optional(
        Type.Array(DivergedMetric, {
          description: "With includeDiverged: the metrics whose series ended non-finite, by name; [] when none.",
        }),
      ),
    }),
  ),
  total: Type.Integer({ description: "Every matching run, ignoring limit and offset." }),
});
