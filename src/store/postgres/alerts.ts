import { ALERT_SQL, CLAIM_LOCKING } from "../alert-sql.js";
import { namedSql, numberedPlaceholders } from "../named-sql.js";
import type { Async } from "../workflow.js";
import type { AlertOperations } from "../workflows/alerts.js";
import { rows, run, type Sql } from "./db.js";

/**
 * The alert store's SQL (alert-sql.ts) as PostgreSQL runs it: placeholders numbered, and a claim
 * takes its rows FOR UPDATE SKIP LOCKED, so processes claiming at once take different deliveries.
 */
const textOf = namedSql(ALERT_SQL, (text) => numberedPlaceholders(text.replace(CLAIM_LOCKING, "FOR UPDATE SKIP LOCKED")));

export function postgresAlertOperations(sql: Sql): Async<AlertOperations> {
  return {
    alertRows: (query, params) => rows<Record<string, unknown>>(sql, textOf(query), params),
    alertRow: async (query, params) => (await rows<Record<string, unknown>>(sql, textOf(query), params))[0],
    alertRun: (query, params) => run(sql, textOf(query), params),
  };
}
