import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../store/store.js";

/** Where data directories made before the secret moved into the store kept it. */
export const SIGNING_SECRET_FILE = "signing.key";

const MIN_SECRET_BYTES = 32;

/**
 * The HMAC secret of signed file URLs. It lives in the store, so every process serving one store
 * signs and verifies with the same secret, and it survives restarts (docs/decisions.md, "Several
 * processes and copying a store"). The first process to start stores a random one; the
 * others read it. A data directory from before keeps its secret in `signing.key`: that secret is
 * moved into the store (URLs given out before stay valid) and the file deleted, so the secret is
 * kept in one place only.
 */
export async function loadSigningSecret(store: Store, dataDir: string, now: number): Promise<Buffer> {
  const file = join(dataDir, SIGNING_SECRET_FILE);
  const legacy = readLegacySecret(file);
  const secret = Buffer.from(await store.getOrCreateSigningSecret(legacy ?? randomBytes(MIN_SECRET_BYTES), now));
  if (secret.length < MIN_SECRET_BYTES)
    throw new Error(`the store holds a URL-signing secret of ${secret.length} bytes, fewer than ${MIN_SECRET_BYTES}`);
  // Only once the store holds a secret: a failed start leaves the file for the next one.
  if (legacy) rmSync(file, { force: true });
  return secret;
}

function readLegacySecret(file: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const secret = Buffer.from(text.trim(), "base64url");
  if (secret.length < MIN_SECRET_BYTES)
    throw new Error(`${file} holds no valid signing secret; delete it to make a new one (signed URLs given out so far stop working)`);
  return secret;
}
