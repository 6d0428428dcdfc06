import { rmSync } from "node:fs";
import { PostgresStore } from "../../../src/store/postgres/index.js";
import { SqliteStore, type SqliteStoreOptions } from "../../../src/store/sqlite/index.js";
import type { AccountStore, Actor, CreateRunInput, RunStore, Store } from "../../../src/store/store.js";
import { createTestDatabase } from "../../helpers/postgres.js";
import { makeTempDir } from "../../helpers/start-server.js";

/** Opens a fresh, empty store with at least the interfaces S, and removes it afterwards. */
export interface StoreOpener<S> {
  open(): Promise<{ store: S; destroy(): Promise<void> }>;
}

/** A store backend under test: opens a fresh, empty store and removes it afterwards. */
export interface Backend extends StoreOpener<Store> {
  name: string;
}

/**
 * Every backend the contract runs against: SQLite in a temporary directory (twice: as configured,
 * and with every metric write through its writer thread), PostgreSQL in a fresh
 * database of the server at TEST_POSTGRES_URL (test/helpers/postgres.ts). The suites do not change.
 */
export const BACKENDS: Backend[] = [
  sqliteBackend("sqlite", {}),
  // Every group of metric writes through the writer thread (metric-writer-thread.ts), however small.
  sqliteBackend("sqlite, metric writer thread", { writerThreadMinPoints: 0 }),
  {
    name: "postgres",
    async open() {
      const database = await createTestDatabase();
      const store = await PostgresStore.open(database.url);
      return {
        store,
        async destroy() {
          await store.close();
          await database.drop();
        },
      };
    },
  },
];

function sqliteBackend(name: string, options: SqliteStoreOptions): Backend {
  return {
    name,
    async open() {
      const dir = makeTempDir("stepwise-contract-");
      const store = SqliteStore.open(dir, options);
      return {
        store,
        async destroy() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** Ordinary times for the suites: far above the tiny times the stale-run test uses. */
export const T0 = Date.UTC(2030, 0, 1);
export const ACTOR: Actor = { userId: "user-1", apiKeyId: "key-1" };

let counter = 0;
/** A fresh organization per test, so tests share a store but never data. */
export async function newOrg(store: AccountStore): Promise<string> {
  return (await store.createOrganization(`org-${++counter}-${Math.random().toString(36).slice(2, 8)}`, T0)).id;
}

export function runInput(overrides: Partial<CreateRunInput> = {}): CreateRunInput {
  return { projectName: "project", name: "run", tags: [], now: T0, ...overrides };
}

/** A run in a fresh organization. */
export async function newRun(s: AccountStore & RunStore, overrides: Partial<CreateRunInput> = {}) {
  const orgId = await newOrg(s);
  const { run } = await s.createRun(orgId, runInput(overrides), ACTOR);
  return { orgId, runId: run.id };
}

/**
 * How many writers the many-writer tests send at once (docs/architecture.md, "PostgreSQL: many
 * writers"). On SQLite the calls run one after the other; on PostgreSQL each runs on its own pooled
 * connection, at the same time, so every read-then-write must be guarded by the database.
 */
export const WRITERS = 32;

/** Asserts that the promise rejects with a DomainError of this code (the contract's way to report rule violations). */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  let error: unknown;
  try {
    await promise;
  } catch (caught) {
    error = caught;
  }
  if (!error || (error as { code?: string }).code !== code) {
    throw new Error(`expected a DomainError ${code}, got ${error === undefined ? "success" : String((error as Error).message ?? error)}`);
  }
}
