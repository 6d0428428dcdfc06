/**
 * npm run bench:auth — what authenticating and authorizing a request adds to a read (issue 25:
 * ≤ 0.1 ms p50), by key and by session. Times the server's own onRequest hook (src/http/auth.ts
 * authenticate: find the key or session with its member's role in one query, check expiry, the
 * role), on the real store, called as Fastify calls it for a GET; nothing is cached, so a revoked
 * key, an ended session or a removed member is refused at the next request in every process.
 * `-- --database-url postgres://…/db` runs on PostgreSQL (a fresh database, dropped afterwards).
 * Environment: BENCH_REQUESTS per credential (default 20000).
 */
import type { FastifyRequest } from "fastify";
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { loadConfig } from "../src/config.js";
import { systemClock } from "../src/domain/time.js";
import { authenticate } from "../src/http/auth.js";
import { createOrganizationWithKey } from "../src/services/accounts.js";
import { SessionService } from "../src/services/sessions.js";
import { authCacheTtlMs, cachingCredentials } from "../src/store/credential-cache.js";
import { PostgresStore } from "../src/store/postgres/index.js";
import { SqliteStore } from "../src/store/sqlite/index.js";
import type { Store } from "../src/store/store.js";
import { makeTempDir } from "../test/helpers/start-server.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { percentile, printFigures } from "./lib/report.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);

async function main(): Promise<void> {
  const dataDir = makeTempDir("stepwise-bench-auth-");
  const database = DATABASE_SERVER_URL ? await freshDatabase(DATABASE_SERVER_URL, "auth") : undefined;
  const store: Store = database ? await PostgresStore.open(database.url) : SqliteStore.open(dataDir);
  try {
    const now = systemClock.now();
    const { organization, key } = await createOrganizationWithKey(store, "bench", systemClock);
    const person = await store.createUser({ orgId: organization.id, email: "ada@example.com", name: "Ada", kind: "person" }, now);
    await store.setMembership(organization.id, person.id, "member", now);
    const config = loadConfig({}, {});
    const sessions = new SessionService(store, systemClock, { idleMs: config.sessionIdleMs, maxAgeMs: config.sessionMaxAgeMs });

    const { token } = await sessions.start({ userId: person.id, orgId: organization.id, sourceIp: null, userAgent: null });
    // As the server runs it: --auth-cache-ttl's "auto" (1 s on PostgreSQL, off on SQLite), and without the cache.
    const ttl = authCacheTtlMs({ authCacheTtl: "auto", databaseUrl: database ? database.url : "" });
    const cached = cachingCredentials(store, systemClock, ttl);
    const policy = { idleMs: config.sessionIdleMs, maxAgeMs: config.sessionMaxAgeMs };
    const served = authenticate(cached, systemClock, new SessionService(cached, systemClock, policy), "");
    const uncached = authenticate(store, systemClock, sessions, "");

    const request = (headers: Record<string, string>, cookies: Record<string, string>) =>
      ({ headers, cookies, url: "/api/runs/projects", method: "GET", routeOptions: { config: {} } }) as unknown as FastifyRequest;
    const byKey = request({ authorization: `Bearer ${key}` }, {});
    const bySession = request({}, { stepwise_session: token });

    const time = async (hook: typeof served, req: FastifyRequest) => {
      for (let i = 0; i < 2000; i++) await hook(req); // warm: JIT, statement caches, pool connections
      const samples: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const start = performance.now();
        await hook(req);
        samples.push(performance.now() - start);
      }
      return samples.sort((a, b) => a - b);
    };
    const backend = database ? "PostgreSQL" : "SQLite";
    const figures = [];
    for (const [label, hook] of [
      [`as served (cache ${ttl} ms)`, served],
      ["uncached", uncached],
    ] as const) {
      const keyTimes = await time(hook, byKey);
      const sessionTimes = await time(hook, bySession);
      const target = label === "uncached" ? undefined : ({ bound: "max", value: 0.1 } as const);
      figures.push(
        { name: `by key, ${label}, p50`, value: percentile(keyTimes, 50), unit: "ms", target },
        { name: `by key, ${label}, p99`, value: percentile(keyTimes, 99), unit: "ms" },
        { name: `by session, ${label}, p50`, value: percentile(sessionTimes, 50), unit: "ms", target },
        { name: `by session, ${label}, p99`, value: percentile(sessionTimes, 99), unit: "ms" },
      );
    }
    printFigures(`Authentication per request, ${backend} (${REQUESTS} requests each)`, figures);
  } finally {
    await store.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
