import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import type { BlobStore } from "./blobs/blob-store.js";
import { openBlobStore } from "./blobs/open.js";
import type { Config } from "./config.js";
import { systemClock, type Clock } from "./domain/time.js";
import { loadSigningSecret } from "./files/signing-secret.js";
import { ServerMetrics } from "./observability/metrics.js";
import { countingStoreErrors } from "./observability/store-errors.js";
import { bootstrap } from "./services/accounts.js";
import { type AlertBackground, startAlertBackground } from "./services/alert-monitor.js";
import { createServices, type Services } from "./services/services.js";
import { startPurgeMonitor, type PurgeMonitor } from "./services/purge.js";
import { startStaleRunMonitor, type StaleRunMonitor } from "./services/stale-runs.js";
import { authCacheTtlMs, cachingCredentials } from "./store/credential-cache.js";
import { openConfiguredStore } from "./store/open.js";
import type { Store } from "./store/store.js";
import { waitingOutLocks } from "./store/unavailable.js";

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  store: Store;
  /** The application's services (tests sign people in through sessions with them). */
  services: Services;
  /** The server's own metrics (GET /metrics); the alert delivery worker counts its outcomes with `alertDelivery`. */
  metrics: ServerMetrics;
  staleMonitor: StaleRunMonitor;
  /** The delivery worker and the stalled check (services/alert-monitor.ts). */
  alerts: AlertBackground;
  /** The hourly purge of deleted runs and projects past --deleted-retention (services/purge.ts). */
  purgeMonitor: PurgeMonitor;
  /** The key created on first start of an empty data directory; undefined otherwise. */
  bootstrapKey: string | undefined;
  /**
   * Stops accepting connections, finishes in-flight requests (cutting those still running after
   * the shutdown timeout), then closes the store.
   */
  close(): Promise<void>;
}

/** How long start-up writes wait for another process's lock on the store (as opening the database does). */
const STARTUP_LOCK_WAIT_MS = 5000;

/** Opens the store (PostgreSQL at --database-url, else SQLite in the data directory), listens, and sets the store up on first start. */
export async function startServer(config: Config, clock: Clock = systemClock): Promise<RunningServer> {
  const metrics = new ServerMetrics();
  // Every store call of this server, its requests' and its monitors', counts its failures.
  const opened = await openConfiguredStore(config, {
    busyTimeoutMs: config.storeBusyTimeoutMs,
    lockTimeoutMs: config.storeLockTimeoutMs,
    statementTimeoutMs: config.storeStatementTimeoutMs,
  });
  const store = countingStoreErrors(cachingCredentials(opened, clock, authCacheTtlMs(config)), metrics);
  const poolUse = store.poolUse;
  if (poolUse) metrics.watchPool(poolUse);
  let app: FastifyInstance;
  let blobs: BlobStore | undefined;
  let services: Services;
  try {
    blobs = await openBlobStore(config);
    const signingSecret = await loadSigningSecret(waitingOutLocks(store, STARTUP_LOCK_WAIT_MS), config.dataDir, clock.now());
    const deps = { config, store, clock, blobs, signingSecret, metrics };
    services = createServices(deps);
    app = await buildApp(deps, services);
  } catch (error) {
    blobs?.close();
    await store.close();
    throw error;
  }
  try {
    const address = await app.listen({ port: config.port, host: config.host });
    // After listen: a start that cannot listen (port taken) must not create the one key it would never print.
    const bootstrapKey = await bootstrap(waitingOutLocks(store, STARTUP_LOCK_WAIT_MS), clock);
    const { evaluator } = services.alerts;
    const alerts = startAlertBackground({ config, store, clock }, evaluator, app.log, (outcome) => metrics.alertDelivery(outcome));
    // Runs the sweep failed fire their status rules like any other status change.
    const staleMonitor = startStaleRunMonitor({ config, store, clock }, app.log, (runIds) => {
      void (async () => {
        for (const runId of runIds) await evaluator.afterStatus(runId, "FAILED");
      })();
    });
    const purgeMonitor = startPurgeMonitor({ store, blobs, clock, retentionMs: config.deletedRetentionMs }, app.log);
    const url = config.host.includes(":") ? address : address.replace("0.0.0.0", "127.0.0.1");
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await staleMonitor.stop();
        await alerts.stop();
        await purgeMonitor.stop();
        const cutOff = setTimeout(() => {
          app.log.warn("shutdown timeout reached: cutting the requests still in flight");
          app.server.closeAllConnections();
        }, config.shutdownTimeoutMs);
        try {
          await app.close();
        } finally {
          clearTimeout(cutOff);
        }
        blobs.close();
        await store.close();
      })());
    return { url, app, store, services, metrics, staleMonitor, alerts, purgeMonitor, bootstrapKey, close };
  } catch (error) {
    await app.close();
    blobs.close();
    await store.close();
    throw error;
  }
}
