/**
 * The names a run filter may use (docs/semantics.md, Run filters; what they mean is compiled in
 * run-filter.ts): operators, fields with a fixed meaning, and the prefixes of keyed fields. Published
 * in the OpenAPI document (RunFilterGrammar) and offered by the web UI's filter builder.
 */
export const RUN_FILTER_GRAMMAR = {
  booleanOperators: ["$and", "$or", "$not"],
  leafOperators: ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$regex"],
  fields: [
    "state",
    "status",
    "heartbeat_at",
    "heartbeatAt",
    "created_at",
    "createdAt",
    "updated_at",
    "updatedAt",
    "name",
    "displayName",
    "display_name",
    "tags",
  ],
  fieldPrefixes: ["config.", "systemMetadata.", "summaryMetrics.", "summary_metrics."],
} as const;

export type LeafOperator = (typeof RUN_FILTER_GRAMMAR.leafOperators)[number];
