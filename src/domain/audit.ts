import { invalidInput } from "./errors.js";
import type { Json } from "./merge.js";

/**
 * The audit log's rules (docs/semantics.md, "Audit log"): which actions are recorded, what an actor is
 * called, how large an entry may be. Pure: services/audit.ts shapes each event here and the store
 * appends it as it is.
 */

/**
 * Every action the log records, a closed list: an entry names one of these, and a filter names one or
 * a prefix of several (`key.`). A new kind of event adds its name here (and to docs/semantics.md).
 */
export const AUDIT_ACTIONS = [
  "sign_in",
  "sign_in_failed",
  "sign_out",
  "key.create",
  "key.revoke",
  "member.add",
  "member.role",
  "member.remove",
  "runs.delete",
  "runs.restore",
  "runs.purge",
  "project.delete",
  "project.restore",
  "project.purge",
  "retention.set",
  "alert_rule.create",
  "alert_rule.update",
  "alert_rule.delete",
  "alert_destination.create",
  "alert_destination.update",
  "alert_destination.delete",
  "organization.update",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an entry is about. A target's ID is the name the API uses for it: a run's numeric ID, a project's name, a key's ID. */
export const AUDIT_TARGET_TYPES = ["run", "project", "api_key", "user", "alert_rule", "alert_destination", "organization"] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * Who acted. `label` is what people read in the log, fixed when the entry is written: a person's
 * email, a service account's name, `cli` for the operator's command line, `system` for the server's
 * own jobs (the purge, retention).
 */
export interface AuditActor {
  userId: string | null;
  apiKeyId: string | null;
  label: string;
}

export const CLI_ACTOR: AuditActor = { userId: null, apiKeyId: null, label: "cli" };
export const SYSTEM_ACTOR: AuditActor = { userId: null, apiKeyId: null, label: "system" };

/** One event as a caller reports it (services/audit.ts AuditLog.record). */
export interface AuditEvent {
  orgId: string;
  actor: AuditActor;
  action: AuditAction;
  /** null: the organization itself, or nothing in particular (a failed sign-in of an unknown email). */
  target: { type: AuditTargetType; id: string } | null;
  /** The client's address as the server saw it (docs/semantics.md, "Audit log": behind a proxy, --trust-proxy). null from the CLI and jobs. */
  sourceIp: string | null;
  /** A few facts worth keeping (a run's display ID, a rule's name): JSON, cut to MAX_AUDIT_DETAILS_BYTES. */
  details?: { [key: string]: Json };
}

/** An entry as the store appends it. */
export interface NewAuditEntry {
  orgId: string;
  /** Epoch milliseconds, the server's clock. */
  at: number;
  actorUserId: string | null;
  actorApiKeyId: string | null;
  actorLabel: string;
  sourceIp: string | null;
  action: AuditAction;
  targetType: AuditTargetType | null;
  targetId: string | null;
  /** JSON text of an object, or null. */
  details: string | null;
}

/** An entry as the store reads it back. `id` grows with each entry of the store: the log's order. */
export interface AuditEntry extends NewAuditEntry {
  id: number;
}

/**
 * 4 KiB keeps a row small whatever a caller puts in it (a bulk delete of 1,000 runs names each run
 * in an entry of its own, not in one entry's details) while holding any handful of names and IDs.
 */
export const MAX_AUDIT_DETAILS_BYTES = 4096;
/** Labels, target IDs and addresses are cut to this many characters: an email is at most 254. */
export const MAX_AUDIT_TEXT = 256;
/** Arrays and strings of details too large as a whole are cut to these sizes first. */
const CUT_ARRAY_ITEMS = 20;
const CUT_STRING_CHARS = 200;

const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

/** The entry an event makes at time `at`: every text bounded, details as bounded JSON text. */
export function auditEntry(event: AuditEvent, at: number): NewAuditEntry {
  return {
    orgId: event.orgId,
    at,
    actorUserId: event.actor.userId,
    actorApiKeyId: event.actor.apiKeyId,
    actorLabel: cut(event.actor.label === "" ? "unknown" : event.actor.label, MAX_AUDIT_TEXT),
    sourceIp: event.sourceIp === null ? null : cut(event.sourceIp, 64),
    action: event.action,
    targetType: event.target?.type ?? null,
    targetId: event.target ? cut(event.target.id, MAX_AUDIT_TEXT) : null,
    details: auditDetailsText(event.details),
  };
}

/**
 * Details as JSON text of at most MAX_AUDIT_DETAILS_BYTES: as given when they fit; else with long
 * arrays and strings cut and `truncated: true`; else only `{"truncated":true}`. null when there are none.
 */
export function auditDetailsText(details: { [key: string]: Json } | undefined): string | null {
  if (details === undefined || Object.keys(details).length === 0) return null;
  const fits = (text: string) => new TextEncoder().encode(text).length <= MAX_AUDIT_DETAILS_BYTES;
  const whole = JSON.stringify(details);
  if (fits(whole)) return whole;
  const shorten = (value: Json): Json =>
    Array.isArray(value) ? value.slice(0, CUT_ARRAY_ITEMS) : typeof value === "string" ? cut(value, CUT_STRING_CHARS) : value;
  // fromEntries defines own properties: a key such as "__proto__" stays a key, never a prototype.
  const shortened = Object.fromEntries([...Object.entries(details).map(([key, value]) => [key, shorten(value)]), ["truncated", true]]);
  const text = JSON.stringify(shortened);
  return fits(text) ? text : JSON.stringify({ truncated: true });
}

/**
 * What the actor of a user is called: a person's email, a service account's name, else the user's
 * name, else its ID.
 */
export function actorLabel(user: { id: string; name?: string | null; email?: string | null; kind?: string | null }): string {
  if (user.kind !== "service" && user.email) return user.email;
  return user.name || user.email || user.id;
}

/**
 * The actions a filter names: one action (`runs.delete`) or every action under a prefix ending in a
 * dot (`key.`, `alert_rule.`). Anything else is refused, so a filter can never match nothing by a typo.
 */
export function actionsMatching(filter: string): AuditAction[] {
  const matching = filter.endsWith(".")
    ? AUDIT_ACTIONS.filter((action) => action.startsWith(filter))
    : AUDIT_ACTIONS.filter((action) => action === filter);
  if (matching.length === 0) {
    throw invalidInput(`action: '${cut(filter, 64)}' is neither an action nor a prefix of actions ending in '.' (such as 'key.')`);
  }
  return matching;
}
