import { ALERT_SQL, CLAIM_LOCKING } from "../alert-sql.js";
import { namedSql } from "../named-sql.js";
import type { AlertOperations } from "../workflows/alerts.js";
import type { Statements } from "./statements.js";

/** The alert store's SQL (alert-sql.ts) as SQLite runs it: one writer at a time, so a claim needs no row locks. */
const textOf = namedSql(ALERT_SQL, (text) => text.replace(CLAIM_LOCKING, ""));

export function sqliteAlertOperations(s: Statements): AlertOperations {
  return {
    alertRows: (query, params) => s.get(textOf(query)).all(...params) as Record<string, unknown>[],
    alertRow: (query, params) => s.get(textOf(query)).get(...params) as Record<string, unknown> | undefined,
    alertRun: (query, params) => s.get(textOf(query)).run(...params).changes,
  };
}
