import { API_KEY_COLUMNS, toApiKey, type ApiKeyRow } from "../rows.js";
import type { ApiKeyRecord } from "../store.js";
import { row, rows, run, type Sql } from "./db.js";

export async function getApiKey(sql: Sql, keyId: string): Promise<ApiKeyRecord | undefined> {
  const found = await row<ApiKeyRow>(sql, `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]);
  return found && toApiKey(found);
}

export async function listApiKeys(sql: Sql, orgId: string): Promise<ApiKeyRecord[]> {
  return (await rows<ApiKeyRow>(sql, `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE org_id = $1 ORDER BY created_at, id`, [orgId])).map(
    toApiKey,
  );
}

/** One statement: the first revocation time stays, whoever revokes at the same moment. */
export async function revokeApiKey(sql: Sql, keyId: string, now: number): Promise<ApiKeyRecord | undefined> {
  await run(sql, "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", [now, keyId]);
  return getApiKey(sql, keyId);
}
