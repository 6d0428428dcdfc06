/**
 * The tables `stepwise copy` moves between stores, in dependency order (a row's references are
 * copied before it), with their key and columns. This is the backend-neutral shape of a store's
 * data: every backend exports and imports rows of exactly these columns, whatever its own column
 * types, so a copy works between any two backends (docs/architecture.md, "Copying a store").
 *
 * Value types on the way: `text` a string, `integer` and `real` a number, `json` JSON text (as the
 * client's values were stored, key order kept), `blob` bytes; any of them may be null.
 * Leases, browser sessions, invitations and failed sign-ins are left out: they describe running
 * processes, signed-in browsers and links in flight, not data (after a copy, people sign in again;
 * an invitation not yet used is made again).
 */
export type CopyColumnType = "text" | "integer" | "real" | "json" | "blob";

export interface CopyTable {
  name: string;
  /** The columns rows are ordered and paged by (a unique key). */
  key: readonly string[];
  columns: readonly (readonly [name: string, type: CopyColumnType])[];
}

export type CopyValue = string | number | Uint8Array | null;
/** One row: its values in the order of the table's `columns`. */
export type CopyRow = CopyValue[];

const t = (name: string, key: string[], columns: Record<string, CopyColumnType>): CopyTable => ({
  name,
  key,
  columns: Object.entries(columns),
});

export const COPY_TABLES: readonly CopyTable[] = [
  t("organizations", ["id"], { id: "text", slug: "text", created_at: "integer" }),
  t("users", ["id"], {
    id: "text",
    org_id: "text",
    name: "text",
    created_at: "integer",
    email: "text",
    kind: "text",
    password_hash: "text",
  }),
  t("memberships", ["org_id", "user_id"], { org_id: "text", user_id: "text", role: "text", created_at: "integer" }),
  t("api_keys", ["id"], {
    id: "text",
    org_id: "text",
    user_id: "text",
    name: "text",
    key_hash: "text",
    display_prefix: "text",
    created_at: "integer",
    expires_at: "integer",
    revoked_at: "integer",
    role: "text",
  }),
  t("projects", ["id"], {
    id: "integer",
    org_id: "text",
    name: "text",
    run_prefix: "text",
    next_number: "integer",
    created_at: "integer",
    updated_at: "integer",
    mlflow_tags: "json",
    deleted_at: "integer",
    mlflow_default: "integer",
  }),
  // A fork's parent has a lower ID than the fork, so key order also satisfies forked_from_run_id.
  t("runs", ["id"], {
    id: "integer",
    org_id: "text",
    project_id: "integer",
    name: "text",
    number: "integer",
    display_id: "text",
    external_id: "text",
    status: "text",
    tags: "json",
    notes: "text",
    config: "json",
    system_metadata: "json",
    logger_settings: "json",
    status_metadata: "json",
    model_graph: "json",
    created_at: "integer",
    updated_at: "integer",
    status_updated: "integer",
    heartbeat_at: "integer",
    forked_from_run_id: "integer",
    fork_step: "integer",
    mlflow_id: "text",
    mlflow_tags: "json",
    mlflow_user_id: "text",
    mlflow_inputs: "json",
    deleted_at: "integer",
  }),
  t("run_log_names", ["run_id", "log_name"], {
    run_id: "integer",
    log_name: "text",
    log_type: "text",
    log_group: "text",
    created_at: "integer",
  }),
  t("status_events", ["id"], {
    id: "integer",
    run_id: "integer",
    from_status: "text",
    to_status: "text",
    source: "text",
    metadata: "json",
    actor_id: "text",
    api_key_id: "text",
    created_at: "integer",
  }),
  t("alerts", ["id"], {
    id: "integer",
    run_id: "integer",
    title: "text",
    body: "text",
    level: "text",
    timestamp: "integer",
    created_at: "integer",
  }),
  t("mlflow_logged_models", ["id"], {
    id: "text",
    org_id: "text",
    project_id: "integer",
    name: "text",
    model_type: "text",
    source_run_id: "integer",
    status: "text",
    params: "json",
    tags: "json",
    created_at: "integer",
    updated_at: "integer",
    deleted_at: "integer",
  }),
  t("metrics", ["id"], {
    id: "integer",
    run_id: "integer",
    log_name: "text",
    log_group: "text",
    count: "integer",
    non_finite_count: "integer",
    min: "real",
    max: "real",
    mean: "real",
    stddev: "real",
    first_step: "integer",
    last_step: "integer",
    last_value: "real",
    last_value_step: "integer",
    last_time: "real",
  }),
  t("project_metric_names", ["project_id", "log_name"], { project_id: "integer", log_name: "text" }),
  t("metric_chunks", ["id"], {
    id: "integer",
    metric_id: "integer",
    start_step: "integer",
    end_step: "integer",
    point_count: "integer",
    finite_count: "integer",
    mean: "real",
    stddev: "real",
    min: "real",
    min_step: "integer",
    min_time: "real",
    max: "real",
    max_step: "integer",
    max_time: "real",
    last_value: "real",
    last_value_step: "integer",
    nan_step: "integer",
    inf_step: "integer",
    neg_inf_step: "integer",
  }),
  // The points of a chunk in the codec of src/store/metric-chunks.ts, shared by every backend.
  t("metric_chunk_points", ["chunk_id"], { chunk_id: "integer", points: "blob" }),
  t("console_logs", ["run_id", "time", "line_number", "log_type"], {
    run_id: "integer",
    log_type: "text",
    line_number: "integer",
    time: "integer",
    message: "text",
    step: "integer",
  }),
  t("console_log_counts", ["run_id", "log_type"], { run_id: "integer", log_type: "text", lines: "integer" }),
  // `data` is text as the client sent it (not JSON the store interprets).
  t("data_rows", ["run_id", "log_name", "step"], {
    run_id: "integer",
    log_name: "text",
    step: "integer",
    data_type: "text",
    time: "integer",
    data: "text",
  }),
  t("files", ["id"], {
    id: "integer",
    run_id: "integer",
    log_name: "text",
    file_name: "text",
    file_type: "text",
    file_size: "integer",
    time: "integer",
    step: "integer",
    sample_index: "integer",
    caption: "text",
    annotations: "text",
    created_at: "integer",
    uploaded_at: "integer",
  }),
  t("registered_models", ["id"], {
    id: "integer",
    org_id: "text",
    name: "text",
    description: "text",
    tags: "json",
    aliases: "json",
    last_version: "integer",
    created_at: "integer",
    updated_at: "integer",
  }),
  t("model_versions", ["model_id", "version"], {
    model_id: "integer",
    version: "integer",
    description: "text",
    user_id: "text",
    stage: "text",
    source: "text",
    storage_location: "text",
    run_id: "text",
    run_link: "text",
    status: "text",
    status_message: "text",
    tags: "json",
    created_at: "integer",
    updated_at: "integer",
  }),
  t("saved_views", ["id"], {
    id: "integer",
    org_id: "text",
    project_id: "integer",
    name: "text",
    state: "json",
    created_at: "integer",
    updated_at: "integer",
  }),
  // Alerts (migration 0020): destinations with their secrets, rules, states, events and the outbox.
  t("alert_destinations", ["id"], {
    id: "integer",
    org_id: "text",
    name: "text",
    kind: "text",
    url: "text",
    secret: "text",
    created_at: "integer",
  }),
  t("alert_rules", ["id"], {
    id: "integer",
    org_id: "text",
    project_id: "integer",
    name: "text",
    kind: "text",
    condition: "json",
    enabled: "integer",
    created_at: "integer",
    updated_at: "integer",
  }),
  t("alert_rule_destinations", ["rule_id", "destination_id"], { rule_id: "integer", destination_id: "integer" }),
  t("alert_states", ["rule_id", "run_id"], {
    rule_id: "integer",
    run_id: "integer",
    active: "integer",
    streak: "integer",
    updated_at: "integer",
  }),
  t("alert_events", ["id"], {
    id: "integer",
    org_id: "text",
    project_id: "integer",
    run_id: "integer",
    rule_id: "integer",
    rule_name: "text",
    kind: "text",
    title: "text",
    body: "text",
    level: "text",
    created_at: "integer",
  }),
  t("alert_deliveries", ["seq"], {
    seq: "integer",
    id: "text",
    org_id: "text",
    event_id: "integer",
    destination_id: "integer",
    status: "text",
    attempts: "integer",
    last_error: "text",
    next_attempt_at: "integer",
    claimed_until: "integer",
    claim_token: "text",
    delivered_at: "integer",
    created_at: "integer",
  }),
  t("retention_policies", ["project_id"], {
    project_id: "integer",
    org_id: "text",
    max_age_days: "integer",
    exclude_tag: "text",
    updated_at: "integer",
  }),
  // Runs purged on the source whose file bytes are still to remove: copied with the files
  // (`stepwise copy-files`), they are the target's to remove at its next purge.
  t("blob_purges", ["run_id"], { run_id: "integer", org_id: "text", project_id: "integer", queued_at: "integer" }),
  // The URL-signing secret: signed URLs given out by the source stay valid on the target.
  t("secrets", ["name"], { name: "text", value: "blob", created_at: "integer" }),
  t("audit_log", ["id"], {
    id: "integer",
    org_id: "text",
    at: "integer",
    actor_user_id: "text",
    actor_api_key_id: "text",
    actor_label: "text",
    source_ip: "text",
    action: "text",
    target_type: "text",
    target_id: "text",
    details: "json",
  }),
];

/** The table of this name, or undefined: table names from callers are checked here, never put into SQL as given. */
/**
 * The table of that name, checked before any SQL is built: SQL is built only from this fixed list,
 * so the set of statement texts stays small and no caller's string ever becomes SQL.
 */
export function copyTable(name: string): CopyTable {
  const table = COPY_TABLES.find((known) => known.name === name);
  if (!table) throw new Error(`no copyable table '${name}'`);
  return table;
}

/** A key to continue after has one value per key column. */
export function checkCopyKey(table: CopyTable, after: CopyValue[] | null): void {
  if (after !== null && after.length !== table.key.length) throw new Error(`${table.name}: a key has ${table.key.length} values`);
}

/** A row to import has one value per column. */
export function checkCopyRow(table: CopyTable, row: CopyRow): void {
  if (row.length !== table.columns.length) throw new Error(`${table.name}: a row has ${table.columns.length} values, got ${row.length}`);
}
