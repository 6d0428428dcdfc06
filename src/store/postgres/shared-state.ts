import { SIGNING_SECRET_NAME } from "../store.js";
import { row, run, type Sql } from "./db.js";

/** Inserts the candidate unless a secret exists, then reads the one stored: the first writer wins. */
export async function getOrCreateSigningSecret(sql: Sql, candidate: Uint8Array, now: number): Promise<Buffer> {
  await run(sql, "INSERT INTO secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING", [
    SIGNING_SECRET_NAME,
    Buffer.from(candidate),
    now,
  ]);
  return (await row<{ value: Buffer }>(sql, "SELECT value FROM secrets WHERE name = $1", [SIGNING_SECRET_NAME]))!.value;
}

/** One statement: insert, or take over when expired or ours; a lease held by another live holder is left alone. */
export async function tryAcquireLease(sql: Sql, name: string, holderId: string, now: number, ttlMs: number): Promise<boolean> {
  const changed = await run(
    sql,
    `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE leases.holder = excluded.holder OR leases.expires_at <= $4`,
    [name, holderId, now + ttlMs, now],
  );
  return changed === 1;
}

export async function releaseLease(sql: Sql, name: string, holderId: string): Promise<void> {
  await run(sql, "DELETE FROM leases WHERE name = $1 AND holder = $2", [name, holderId]);
}
