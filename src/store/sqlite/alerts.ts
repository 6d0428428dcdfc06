import { ALERT_SQL, type AlertQuery, CLAIM_LOCKING } from "../alert-sql.js";
import type { AlertOperations } from "../workflows/alerts.js";
import type { Statements } from "./statements.js";

/** The alert store's SQL (alert-sql.ts) as SQLite runs it: one writer at a time, so a claim needs no row locks. */
const texts = new Map(Object.entries(ALERT_SQL).map(([name, text]) => [name, text.replace(CLAIM_LOCKING, "")]));

const textOf = (query: AlertQuery) => texts.get(query)!;

export function sqliteAlertOperations(s: Statements): AlertOperations {
  return {
    alertRows: (query, params) => s.get(textOf(query)).all(...params) as Record<string, unknown>[],
    alertRow: (query, params) => s.get(textOf(query)).get(...params) as Record<string, unknown> | undefined,
    alertRun: (query, params) => s.get(textOf(query)).run(...params).changes,
  };
}
