import type { FastifyInstance } from "fastify";
import { join } from "node:path";
import { buildApp } from "./app.js";
import { LocalBlobStore } from "./blobs/local.js";
import type { Config } from "./config.js";
import { systemClock, type Clock } from "./domain/time.js";
import { loadSigningSecret } from "./files/signing-secret.js";
import { startStaleRunMonitor, type StaleRunMonitor } from "./monitor/stale-runs.js";
import { bootstrap } from "./services/accounts.js";
import { SqliteStore } from "./store/sqlite/index.js";
import type { Store } from "./store/store.js";

export interface RunningServer {
  url: string;
  app: FastifyInstance;
  store: Store;
  staleMonitor: StaleRunMonitor;
  /** The key created on first start of an empty data directory; undefined otherwise. */
  bootstrapKey: string | undefined;
  /** Stops accepting connections, finishes in-flight requests, then closes the store. */
  close(): Promise<void>;
}

/** Opens the store in the data directory, listens, and sets the store up on first start. */
export async function startServer(config: Config, clock: Clock = systemClock): Promise<RunningServer> {
  const store = SqliteStore.open(config.dataDir);
  let app: FastifyInstance;
  try {
    const blobs = new LocalBlobStore(join(config.dataDir, "files"));
    app = await buildApp({ config, store, clock, blobs, signingSecret: loadSigningSecret(config.dataDir) });
  } catch (error) {
    await store.close();
    throw error;
  }
  try {
    const address = await app.listen({ port: config.port, host: config.host });
    // After listen: a start that cannot listen (port taken) must not create the one key it would never print.
    const bootstrapKey = await bootstrap(store, clock);
    const staleMonitor = startStaleRunMonitor(store, clock, config.staleAfterMs, app.log);
    const url = config.host.includes(":") ? address : address.replace("0.0.0.0", "127.0.0.1");
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        staleMonitor.stop();
        await app.close();
        await store.close();
      })());
    return { url, app, store, staleMonitor, bootstrapKey, close };
  } catch (error) {
    await app.close();
    await store.close();
    throw error;
  }
}
