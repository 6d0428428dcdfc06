/**
 * Why the store (database or file bytes) cannot take a request right now, read from the error a
 * driver or the file system threw; undefined for any other error. These are not bugs but states
 * that pass: clients should retry after `retryAfterSeconds` (see "Busy store, full disk" in
 * docs/decisions.md). A new store adds its driver's codes here.
 */
export interface Unavailability {
  /** Why, in one word: the label of the server's 503 and store-error counters (GET /metrics). */
  cause: UnavailableCause;
  message: string;
  retryAfterSeconds: number;
}

/** Every reason the server answers 503: the store's states below, plus its own load limits (large ingest bodies). */
export type UnavailableCause = "busy" | "full" | "down" | "slow" | "no_connection" | "unreachable" | "large_bodies";

const BUSY: Unavailability = {
  cause: "busy",
  message: "store busy: another process holds the database lock; retry shortly",
  retryAfterSeconds: 1,
};

const FULL: Unavailability = {
  cause: "full",
  message: "storage full: the server's disk has no space left; retry later",
  retryAfterSeconds: 60,
};

const DOWN: Unavailability = {
  cause: "down",
  message: "store unreachable: the database server does not answer; retry shortly",
  retryAfterSeconds: 5,
};

const SLOW: Unavailability = {
  cause: "slow",
  message: "store busy: a database statement took longer than the server allows; retry shortly",
  retryAfterSeconds: 5,
};

const NO_CONNECTION: Unavailability = {
  cause: "no_connection",
  message: "store busy: no database connection became free in time; retry shortly",
  retryAfterSeconds: 5,
};

// SQLite result codes (better-sqlite3 names them, extended codes included), PostgreSQL SQLSTATEs
// (lock not available, deadlock after the store's retries, too many connections, disk full) and
// errnos of the file system and of the connection to a database server.
const BUSY_CODES = /^SQLITE_(BUSY|LOCKED)(_|$)/;
const BUSY_STATES = new Set(["55P03", "40P01", "53300"]);
const FULL_CODES = new Set(["SQLITE_FULL", "ENOSPC", "EDQUOT", "53100"]);
// Connection exceptions (class 08), the server shutting down or starting (57P01-57P03), sockets refused or cut.
const DOWN_CODES = /^(08[0-9A-Z]{3}|57P0[123]|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE)$/;
// A statement cancelled: by the server's statement_timeout (--store-statement-timeout), or by an operator.
const CANCELLED = "57014";
// Errors node-postgres raises without a code, by their fixed messages (pg and pg-pool): the
// connection lost mid-statement, or none to be had within the pool's connection timeout.
const PG_DOWN_MESSAGES = new Set(["Connection terminated unexpectedly", "Connection terminated due to connection timeout"]);
const PG_NO_CONNECTION = "timeout exceeded when trying to connect";

export function storeUnavailability(error: unknown): Unavailability | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (code === undefined && error instanceof Error) {
    if (PG_DOWN_MESSAGES.has(error.message)) return DOWN;
    if (error.message === PG_NO_CONNECTION) return NO_CONNECTION;
    return undefined;
  }
  if (typeof code !== "string") return undefined;
  if (BUSY_CODES.test(code) || BUSY_STATES.has(code)) return BUSY;
  if (FULL_CODES.has(code)) return FULL;
  if (DOWN_CODES.test(code)) return DOWN;
  if (code === CANCELLED) return SLOW;
  return undefined;
}

/** The disk is full for readiness when free space in the data directory falls below the reserve. */
export function lowDiskSpace(freeBytes: number, minFreeBytes: number): Unavailability | undefined {
  if (freeBytes >= minFreeBytes) return undefined;
  return { ...FULL, message: `storage almost full: ${freeBytes} bytes free in the data directory, below the ${minFreeBytes} reserved` };
}

/**
 * The store as start-up uses it: a call that finds the database locked by another process (several
 * processes starting together on one SQLite file, one migrating or creating the first organization
 * while the others wait) is tried again until `waitMs` have passed, as opening the database waits,
 * instead of failing the start. Each Store method is one transaction, so a call that failed busy
 * wrote nothing and may run again. Any other error is thrown at once.
 */
export function waitingOutLocks<S extends object>(store: S, waitMs: number): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        const deadline = Date.now() + waitMs;
        for (;;) {
          try {
            return await value.apply(target, args);
          } catch (error) {
            if (storeUnavailability(error) !== BUSY || Date.now() >= deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      };
    },
  });
}
