import { after, before, describe } from "node:test";
import type { Store } from "../../src/store/store.js";
import { accountContract } from "./contract/accounts.js";
import { alertContract } from "./contract/alerts.js";
import { auditContract } from "./contract/audit.js";
import { BACKENDS } from "./contract/backends.js";
import { copyContract } from "./contract/copy.js";
import { deletionContract } from "./contract/deletion.js";
import { fileContract } from "./contract/files.js";
import { isolationContract } from "./contract/isolation.js";
import { loggedModelContract } from "./contract/logged-models.js";
import { logContract } from "./contract/logs.js";
import { metricContract } from "./contract/metrics.js";
import { mlflowContract } from "./contract/mlflow.js";
import { peopleContract } from "./contract/people.js";
import { oidcLoginContract } from "./contract/oidc-logins.js";
import { modelRegistryContract } from "./contract/model-registry.js";
import { projectContract } from "./contract/projects.js";
import { runContract } from "./contract/runs.js";
import { savedViewContract } from "./contract/saved-views.js";
import { sharedStateContract } from "./contract/shared-state.js";

/**
 * The Store contract (src/store/store.ts), run unchanged against every backend in BACKENDS: one suite
 * per interface in test/store/contract/<interface>.ts, plus organization isolation across them. Each
 * suite's parameter names the interface it tests and the ones it needs as fixtures, so a backend of
 * one aggregate alone (composed with another backend for the rest) can run exactly its suite. Each
 * interface's many-writer tests are in its suite. Each backend gets one fresh store; each test makes
 * its own organizations in it.
 */
for (const backend of BACKENDS) {
  describe(`Store contract: ${backend.name}`, () => {
    let opened: Awaited<ReturnType<typeof backend.open>>;
    before(async () => {
      opened = await backend.open();
    });
    after(async () => opened.destroy());
    const store = (): Store => opened.store;

    describe("AccountStore: organizations, users and API keys", () => accountContract(store));
    describe("PeopleStore: invitations and failed sign-ins", () => peopleContract(store));
    describe("ProjectStore: projects", () => projectContract(store));
    describe("RunStore: lifecycle, status, attributes, log names, alerts, heartbeats", () => runContract(store));
    describe("MetricStore: metric points, summaries and lineage", () => metricContract(store));
    describe("LogStore: console lines and data rows", () => logContract(store));
    describe("FileStore: file records", () => fileContract(store));
    describe("MlflowStore: MLflow's protocol", () => mlflowContract(store));
    describe("ModelRegistryStore: MLflow's model registry", () => modelRegistryContract(store));
    describe("LoggedModelStore: MLflow 3's logged models", () => loggedModelContract(store));
    describe("SavedViewStore: saved views of a project's page", () => savedViewContract(store));
    describe("AlertStore: alert destinations, rules, states, events and deliveries", () => alertContract(store));
    describe("DeletionStore: the trash, the purge and retention", () => deletionContract(store));
    describe("AuditStore: the audit log", () => auditContract(store));
    describe("OidcLoginStore: pending single sign-ins", () => oidcLoginContract(store));
    describe("organization isolation, across the interfaces", () => isolationContract(store));
    // These open stores of their own: they need empty ones, or two.
    describe("SharedStateStore: state shared by processes", () => sharedStateContract(backend));
    describe("CopyStore: bulk copy", () => copyContract(backend));
  });
}
