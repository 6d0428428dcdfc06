import type { AuditEntry, NewAuditEntry } from "../../domain/audit.js";
import { AUDIT_COLUMNS, AUDIT_SELECT, type AuditRow, auditPageClauses, toAuditEntry } from "../audit-rows.js";
import type { AuditQuery } from "../store.js";
import type { Statements } from "./statements.js";

/** The audit log (AuditStore) in SQLite's SQL. */

const INSERT = `INSERT INTO audit_log (${AUDIT_COLUMNS.join(", ")}) VALUES (${AUDIT_COLUMNS.map(() => "?").join(", ")})`;

export function appendAuditEntries(s: Statements, entries: NewAuditEntry[]): void {
  const insert = s.get(INSERT);
  for (const e of entries) {
    insert.run(e.orgId, e.at, e.actorUserId, e.actorApiKeyId, e.actorLabel, e.sourceIp, e.action, e.targetType, e.targetId, e.details);
  }
}

const SQLITE = {
  param: () => "?",
  anyOf: (column: string, placeholder: string, values: string[]) => ({
    sql: `${column} IN (SELECT value FROM json_each(${placeholder}))`,
    value: JSON.stringify(values),
  }),
};

export function listAuditEntries(s: Statements, orgId: string, query: AuditQuery): AuditEntry[] {
  const { clauses, params } = auditPageClauses(orgId, query, SQLITE);
  return (s.get(`${AUDIT_SELECT} ${clauses}`).all(...params) as AuditRow[]).map(toAuditEntry);
}
