import { API_KEY_COLUMNS, toApiKey, type ApiKeyRow } from "../rows.js";
import type { ApiKeyRecord } from "../store.js";
import type { Statements } from "./statements.js";

export function getApiKey(s: Statements, keyId: string): ApiKeyRecord | undefined {
  const row = s.get(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(keyId) as ApiKeyRow | undefined;
  return row && toApiKey(row);
}

export function listApiKeys(s: Statements, orgId: string): ApiKeyRecord[] {
  return (s.get(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE org_id = ? ORDER BY created_at, id`).all(orgId) as ApiKeyRow[]).map(
    toApiKey,
  );
}

export function revokeApiKey(s: Statements, keyId: string, now: number): ApiKeyRecord | undefined {
  s.get("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL").run(now, keyId);
  const row = s.get(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`).get(keyId) as ApiKeyRow | undefined;
  return row && toApiKey(row);
}
