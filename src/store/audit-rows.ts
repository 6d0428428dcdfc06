import type { AuditAction, AuditEntry, AuditTargetType } from "../domain/audit.js";
import type { AuditQuery } from "./store.js";

// The audit log's columns, how its rows become entries, and the clauses of a page, shared by both
// backends (each gives its placeholders and how a column matches a list).

export const AUDIT_COLUMNS = [
  "org_id",
  "at",
  "actor_user_id",
  "actor_api_key_id",
  "actor_label",
  "source_ip",
  "action",
  "target_type",
  "target_id",
  "details",
] as const;

export const AUDIT_SELECT = `SELECT id, ${AUDIT_COLUMNS.join(", ")} FROM audit_log`;

export interface AuditRow {
  id: number;
  org_id: string;
  at: number;
  actor_user_id: string | null;
  actor_api_key_id: string | null;
  actor_label: string;
  source_ip: string | null;
  action: AuditAction;
  target_type: AuditTargetType | null;
  target_id: string | null;
  details: string | null;
}

export const toAuditEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  orgId: row.org_id,
  at: row.at,
  actorUserId: row.actor_user_id,
  actorApiKeyId: row.actor_api_key_id,
  actorLabel: row.actor_label,
  sourceIp: row.source_ip,
  action: row.action,
  targetType: row.target_type,
  targetId: row.target_id,
  details: row.details,
});

/** How a backend writes a parameter and a column matching any value of a list parameter. */
export interface AuditDialect {
  /** The placeholder of the next parameter (`?`, or `$n` for the n-th). */
  param(position: number): string;
  /** `column` equal to any value of the list parameter at `placeholder`, and the list as that parameter's value. */
  anyOf(column: string, placeholder: string, values: string[]): { sql: string; value: unknown };
}

/**
 * The WHERE, ORDER BY and LIMIT of a page and their parameters. A clause is there only when its
 * filter is given: at most 2^7 texts, never shaped by the values themselves. Newest first by ID over
 * the (org_id, id) index, or (org_id, action, id) with an action filter.
 */
export function auditPageClauses(orgId: string, query: AuditQuery, dialect: AuditDialect): { clauses: string; params: unknown[] } {
  const params: unknown[] = [];
  const next = (value: unknown) => {
    params.push(value);
    return dialect.param(params.length);
  };
  const where = [`org_id = ${next(orgId)}`];
  if (query.actions !== null) {
    const placeholder = dialect.param(params.length + 1);
    const { sql, value } = dialect.anyOf("action", placeholder, query.actions);
    params.push(value);
    where.push(sql);
  }
  if (query.actor !== null) where.push(`(actor_user_id = ${next(query.actor)} OR actor_label = ${next(query.actor)})`);
  if (query.targetType !== null) where.push(`target_type = ${next(query.targetType)}`);
  if (query.targetId !== null) where.push(`target_id = ${next(query.targetId)}`);
  if (query.since !== null) where.push(`at >= ${next(query.since)}`);
  if (query.until !== null) where.push(`at < ${next(query.until)}`);
  if (query.beforeId !== null) where.push(`id < ${next(query.beforeId)}`);
  return { clauses: `WHERE ${where.join(" AND ")} ORDER BY id DESC LIMIT ${next(query.limit)}`, params };
}
