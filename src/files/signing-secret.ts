import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SIGNING_SECRET_FILE = "signing.key";

/**
 * The HMAC secret of signed file URLs, kept in the data directory so URLs stay valid across
 * restarts. Created on first start by writing a temporary file and hard-linking it into place,
 * which fails when the name exists: two processes starting at once agree on one whole secret.
 */
export function loadSigningSecret(dataDir: string): Buffer {
  const file = join(dataDir, SIGNING_SECRET_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, randomBytes(32).toString("base64url"), { mode: 0o600 });
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  const secret = Buffer.from(readFileSync(file, "utf8").trim(), "base64url");
  if (secret.length < 32) throw new Error(`${file} holds no valid signing secret; delete it to make a new one (signed URLs given out so far stop working)`);
  return secret;
}
