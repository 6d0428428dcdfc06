import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";
import { invalidInput } from "./errors.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./people-limits.js";

/**
 * Password hashes (docs/semantics.md, "Passwords"; docs/decisions.md, "scrypt for passwords"):
 * scrypt of node:crypto with a random 16-byte salt per hash, its parameters kept in the stored
 * string, `scrypt$N=32768,r=8,p=1$<salt base64url>$<hash base64url>`, so raising them later still
 * verifies the hashes made before. scrypt runs on libuv's thread pool (the async function), never
 * on the event loop.
 */
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH };

export interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT: ScryptParameters = { N: 32768, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
// A stored string's N is accepted up to this: a hash someone wrote into the database cannot make a sign-in take minutes.
const MAX_N = 1 << 20;

/** Throws 400 naming the rule a new password breaks. */
export function assertPasswordAcceptable(password: string): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) throw invalidInput(`password: must be at least ${PASSWORD_MIN_LENGTH} characters long`);
  if (password.length > PASSWORD_MAX_LENGTH) throw invalidInput(`password: must be at most ${PASSWORD_MAX_LENGTH} characters long`);
}

function derive(password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> {
  // maxmem: 128·N·r bytes are needed; node's default (32 MiB) is exactly the default's need, so leave room.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** The stored form of a new password's hash. */
export async function hashPassword(password: string, parameters: ScryptParameters = DEFAULT_SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, parameters);
  const { N, r, p } = parameters;
  return `scrypt$N=${N},r=${r},p=${p}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

/** The parts of a stored hash, or undefined when it is not one this code made. */
export function parseHash(stored: string): { parameters: ScryptParameters; salt: Buffer; hash: Buffer } | undefined {
  const match = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match) return undefined;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (N < 2 || N > MAX_N || (N & (N - 1)) !== 0 || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
  return { parameters: { N, r, p }, salt: Buffer.from(match[4]!, "base64url"), hash: Buffer.from(match[5]!, "base64url") };
}

/**
 * Whether the password is the one of the stored hash, compared in constant time. Without a stored
 * hash (unknown email, no password set yet) it hashes anyway against a fixed dummy and answers
 * false, so the time taken does not tell which emails have accounts.
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parseHash(stored) : undefined;
  if (!parsed) {
    await derive(password, DUMMY_SALT, DEFAULT_SCRYPT);
    return false;
  }
  const candidate = await derive(password, parsed.salt, parsed.parameters);
  return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
}

const DUMMY_SALT = Buffer.alloc(SALT_LENGTH, 7);
