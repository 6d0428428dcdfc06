import { SIGNING_SECRET_NAME } from "../store.js";
import type { Statements } from "./statements.js";

/** Inserts the candidate unless a secret exists, then reads the one stored: the first writer wins. */
export function getOrCreateSigningSecret(s: Statements, candidate: Uint8Array, now: number): Buffer {
  s.get("INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING").run(
    SIGNING_SECRET_NAME,
    Buffer.from(candidate),
    now,
  );
  return (s.get("SELECT value FROM secrets WHERE name = ?").get(SIGNING_SECRET_NAME) as { value: Buffer }).value;
}

/** One statement: insert, or take over when expired or ours; a lease held by another live holder is left alone. */
export function tryAcquireLease(s: Statements, name: string, holderId: string, now: number, ttlMs: number): boolean {
  const result = s
    .get(
      `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at <= ?`,
    )
    .run(name, holderId, now + ttlMs, now);
  return result.changes === 1;
}

export function releaseLease(s: Statements, name: string, holderId: string): void {
  s.get("DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holderId);
}
