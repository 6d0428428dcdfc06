import type { AuditEntry, NewAuditEntry } from "../../domain/audit.js";
import { AUDIT_SELECT, type AuditRow, auditPageClauses, toAuditEntry } from "../audit-rows.js";
import type { AuditQuery } from "../store.js";
import { rows, run, type Sql } from "./db.js";

/** The audit log (AuditStore) in PostgreSQL's SQL. */

// One statement whatever the number of entries (each statement is a round trip); IDs follow the list's order.
const INSERT = `INSERT INTO audit_log (org_id, at, actor_user_id, actor_api_key_id, actor_label, source_ip, action, target_type, target_id, details)
  SELECT org_id, at, actor_user_id, actor_api_key_id, actor_label, source_ip, action, target_type, target_id, details
  FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
    WITH ORDINALITY AS e(org_id, at, actor_user_id, actor_api_key_id, actor_label, source_ip, action, target_type, target_id, details, n)
  ORDER BY n`;

export async function appendAuditEntries(sql: Sql, entries: NewAuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const column = <T>(pick: (entry: NewAuditEntry) => T) => entries.map(pick);
  await run(sql, INSERT, [
    column((e) => e.orgId),
    column((e) => e.at),
    column((e) => e.actorUserId),
    column((e) => e.actorApiKeyId),
    column((e) => e.actorLabel),
    column((e) => e.sourceIp),
    column((e) => e.action),
    column((e) => e.targetType),
    column((e) => e.targetId),
    column((e) => e.details),
  ]);
}

const POSTGRES = {
  param: (position: number) => `$${position}`,
  anyOf: (column: string, placeholder: string, values: string[]) => ({ sql: `${column} = ANY(${placeholder}::text[])`, value: values }),
};

export async function listAuditEntries(sql: Sql, orgId: string, query: AuditQuery): Promise<AuditEntry[]> {
  const { clauses, params } = auditPageClauses(orgId, query, POSTGRES);
  return (await rows<AuditRow>(sql, `${AUDIT_SELECT} ${clauses}`, params)).map(toAuditEntry);
}
