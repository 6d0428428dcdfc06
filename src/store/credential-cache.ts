import type { Config } from "../config.js";
import type { Clock } from "../domain/time.js";
import type { Store } from "./store.js";

/** Entries at most: past it the cache starts over (a bound on memory, not a policy). */
const MAX_ENTRIES = 10_000;

type KeyLookup = Awaited<ReturnType<Store["getApiKeyByHash"]>>;
type SessionLookup = Awaited<ReturnType<Store["getSessionByHash"]>>;

/** The store's writes after which a cached credential may be wrong: any of them empties the cache. */
const INVALIDATING = [
  "revokeApiKey",
  "setMembership",
  "removeMembership",
  "endSession",
  "setSessionOrganization",
  "createApiKey",
  "createSession",
] as const;

/**
 * Keeps what authenticating a request reads — a key or a session with its member's role — for
 * `ttlMs`, so a read on PostgreSQL does not wait for a round trip to authenticate (docs/decisions.md,
 * "Authentication cache"). Expiry is still checked against the clock on every request. Any write of
 * this store that can change a credential (revocation, a role change, a removal, a sign-out)
 * empties the cache: it takes effect at once in this process, and within `ttlMs` in another process
 * on the same database. Session activity updates the cached entry, so a cached session is not
 * touched again before its next minute.
 */
export function cachingCredentials(store: Store, clock: Clock, ttlMs: number): Store {
  if (ttlMs <= 0) return store;
  const keys = new Map<string, { value: KeyLookup; until: number }>();
  const sessions = new Map<string, { value: SessionLookup; until: number }>();
  const clear = () => {
    keys.clear();
    sessions.clear();
  };
  const remember = <T>(cache: Map<string, { value: T; until: number }>, hash: string, value: T) => {
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(hash, { value, until: clock.now() + ttlMs });
    return value;
  };
  const invalidating = Object.fromEntries(
    INVALIDATING.map((name) => [
      name,
      async (...args: unknown[]) => {
        try {
          return await (store[name] as (...a: unknown[]) => Promise<unknown>)(...args);
        } finally {
          clear();
        }
      },
    ]),
  );
  return {
    ...store,
    ...invalidating,
    async getApiKeyByHash(hash) {
      const cached = keys.get(hash);
      if (cached && cached.until > clock.now()) return cached.value;
      return remember(keys, hash, await store.getApiKeyByHash(hash));
    },
    async getSessionByHash(hash) {
      const cached = sessions.get(hash);
      if (cached && cached.until > clock.now()) return cached.value;
      return remember(sessions, hash, await store.getSessionByHash(hash));
    },
    async touchSession(sessionId, now) {
      await store.touchSession(sessionId, now);
      for (const { value } of sessions.values()) if (value?.id === sessionId) value.lastSeenAt = Math.max(value.lastSeenAt, now);
    },
  };
}

/** The cache's lifetime the configuration asks for ("auto": 1 s on PostgreSQL, off on SQLite). */
export function authCacheTtlMs(config: Pick<Config, "authCacheTtl" | "databaseUrl">): number {
  if (config.authCacheTtl !== "auto") return config.authCacheTtl;
  return config.databaseUrl === "" ? 0 : 1000;
}
