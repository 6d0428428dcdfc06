import type { AuditAction, AuditEntry, NewAuditEntry } from "../domain/audit.js";
import type { Store, StoreConnection } from "./store.js";

export type { AuditEntry, NewAuditEntry };

/** Every Store method but the connection's and the audit log's own: what `audited` can run. */
export type AuditedMethod = Exclude<keyof Store, keyof StoreConnection | keyof AuditStore>;

/**
 * The audit log of each organization (docs/semantics.md, "Audit log"). Append-only: no method updates
 * or deletes an entry (the purge of runs and projects leaves them), so an entry, once committed, reads
 * the same for as long as the store holds its organization.
 */
export interface AuditStore {
  /** Appends the entries in one transaction, in order: each gets an ID above every entry before it. */
  appendAuditEntries(entries: NewAuditEntry[]): Promise<void>;
  /**
   * A page of the organization's entries that match every filter given, newest (highest ID) first:
   * at most `limit`, all below `beforeId` when given. Another organization's entries never match.
   */
  listAuditEntries(orgId: string, query: AuditQuery): Promise<AuditEntry[]>;
  /**
   * Runs the Store method `method` with `args` and appends the entries `entries` makes of its result
   * in the same transaction: a write and its audit entries commit together or not at all (a write
   * that throws records nothing). `entries` may return [] (a write that found nothing to change).
   */
  audited<K extends AuditedMethod>(
    method: K,
    args: Parameters<Store[K]>,
    entries: (result: Awaited<ReturnType<Store[K]>>) => NewAuditEntry[],
  ): ReturnType<Store[K]>;
}

/** Filters of listAuditEntries; null: not filtered. */
export interface AuditQuery {
  /** Any of these actions (domain/audit.ts actionsMatching turns a prefix into its actions). */
  actions: AuditAction[] | null;
  /** The actor's user ID, or its label (an email, 'cli', 'system'). */
  actor: string | null;
  targetType: string | null;
  targetId: string | null;
  /** Entries at or after this time (epoch ms). */
  since: number | null;
  /** Entries before this time (epoch ms). */
  until: number | null;
  /** Entries below this ID: where the previous page ended. */
  beforeId: number | null;
  limit: number;
}
