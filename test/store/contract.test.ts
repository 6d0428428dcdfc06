import { after, before, describe } from "node:test";
import type { Store } from "../../src/store/store.js";
import { accountContract } from "./contract/accounts.js";
import { BACKENDS } from "./contract/backends.js";
import { concurrencyContract } from "./contract/concurrency.js";
import { consoleAndDataContract } from "./contract/console-and-data.js";
import { copyContract } from "./contract/copy.js";
import { fileAndListContract } from "./contract/files-and-lists.js";
import { isolationContract } from "./contract/isolation.js";
import { mlflowContract } from "./contract/mlflow.js";
import { runContract } from "./contract/runs.js";
import { runStateContract } from "./contract/run-state.js";
import { sharedStateContract } from "./contract/shared-state.js";

/**
 * The Store contract (src/store/store.ts), run unchanged against every backend in BACKENDS.
 * Each backend gets one fresh store; each test makes its own organizations in it.
 */
for (const backend of BACKENDS) {
  describe(`Store contract: ${backend.name}`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    before(async () => {
      opened = await backend.open();
    });
    after(async () => opened.destroy());
    const store = (): Store => opened.store;

    describe("organizations, users and API keys", () => accountContract(store));
    describe("organization isolation", () => isolationContract(store));
    describe("runs and projects", () => runContract(store));
    describe("status, attributes and heartbeats", () => runStateContract(store));
    describe("files and run lists", () => fileAndListContract(store));
    describe("console lines and data rows", () => consoleAndDataContract(store));
    describe("MLflow's protocol", () => mlflowContract(store));
    describe("many writers at once", () => concurrencyContract(store));
    // These open stores of their own: they need empty ones, or two.
    describe("state shared by processes", () => sharedStateContract(backend));
    describe("bulk copy", () => copyContract(backend));
  });
}
