import type { Store, StoreConnection } from "./store.js";
import type { Workflow } from "./workflow.js";
import * as accounts from "./workflows/accounts.js";
import * as people from "./workflows/people.js";
import * as alerts from "./workflows/alerts.js";
import type { AlertOperations } from "./workflows/alerts.js";
import type { AccountOperations } from "./workflows/accounts.js";
import * as loggedModels from "./workflows/logged-models.js";
import type { LoggedModelOperations } from "./workflows/logged-models.js";
import * as mlflow from "./workflows/mlflow.js";
import type { MlflowOperations } from "./workflows/mlflow.js";
import * as registry from "./workflows/model-registry.js";
import type { ModelRegistryOperations } from "./workflows/model-registry.js";
import * as deletion from "./workflows/deletion.js";
import type { DeletionOperations } from "./workflows/deletion.js";
import * as lifecycle from "./workflows/run-lifecycle.js";
import type { RunLifecycleOperations } from "./workflows/run-lifecycle.js";
import * as savedViews from "./workflows/saved-views.js";
import type { SavedViewOperations } from "./workflows/saved-views.js";
import * as runReads from "./workflows/run-reads.js";
import type { RunReadOperations } from "./workflows/run-reads.js";
import * as runWrites from "./workflows/run-writes.js";
import type { RunWriteOperations } from "./workflows/run-writes.js";
import * as metricReads from "./workflows/metric-reads.js";
import type { MetricReadOperations } from "./workflows/metric-reads.js";
import * as metricWrites from "./workflows/metric-writes.js";
import type { MetricWriteOperations } from "./workflows/metric-writes.js";

type StoreMethod = Exclude<keyof Store, keyof StoreConnection | "audited">;

/**
 * How each Store method runs on every backend: `statement` on the connection as it is (reads only),
 * `write` on the connection as it is too (a write of one statement, which the engine applies
 * whole), `transaction` as one write transaction (read-then-write steps, several statements). A
 * backend whose writes take turns (SQLite's, store/write-turns.ts) makes `write` and `transaction`
 * wait for theirs; on SQLite a `statement` method that writes fails (Statements.readOnly). A method
 * missing here does not compile.
 */
const TRANSACTIONS = {
  createOrganization: "write",
  listOrganizations: "statement",
  getOrganizationBySlug: "statement",
  createUser: "write",
  getUser: "statement",
  getUserByEmail: "statement",
  getPasswordHash: "statement",
  setPasswordHash: "write",
  listUsers: "statement",
  setMembership: "transaction",
  getMembership: "statement",
  removeMembership: "transaction",
  listMembers: "statement",
  listMemberships: "statement",
  createSession: "write",
  getSessionByHash: "statement",
  getSession: "statement",
  touchSession: "write",
  setSessionOrganization: "write",
  endSession: "write",
  createInvitation: "transaction",
  getInvitation: "statement",
  acceptInvitation: "transaction",
  recordSignInFailure: "transaction",
  listSignInFailures: "statement",
  clearSignInFailures: "write",
  anyPasswordSet: "statement",
  createApiKey: "write",
  getApiKeyByHash: "statement",
  getApiKey: "statement",
  listApiKeys: "statement",
  revokeApiKey: "transaction",
  listProjects: "statement",
  getProjectByName: "statement",
  createProject: "transaction",
  getProject: "statement",
  getMlflowProject: "statement",
  getMlflowProjectByName: "statement",
  listMlflowProjects: "statement",
  getMlflowDefaultProject: "statement",
  createMlflowDefaultProject: "transaction",
  updateProjectMlflow: "transaction",
  getRunByMlflowId: "statement",
  getMlflowRun: "statement",
  getMlflowRuns: "statement",
  getMlflowRunRef: "statement",
  updateRunMlflow: "transaction",
  listMlflowCandidates: "statement",
  listMlflowInputs: "statement",
  createRegisteredModel: "transaction",
  getRegisteredModel: "statement",
  listRegisteredModels: "statement",
  createModelVersion: "transaction",
  getModelVersion: "statement",
  listModelVersions: "statement",
  updateRegisteredModel: "transaction",
  createLoggedModel: "transaction",
  getLoggedModel: "statement",
  listLoggedModels: "statement",
  updateLoggedModel: "transaction",
  createRun: "transaction",
  resumeRun: "transaction",
  getRun: "statement",
  getRunProjectName: "statement",
  listRuns: "statement",
  listRunCandidates: "statement",
  listForks: "statement",
  getRuns: "statement",
  getRunByExternalId: "statement",
  listRunsByDisplayId: "statement",
  updateRunStatus: "transaction",
  listStatusEvents: "statement",
  updateRunTags: "write",
  updateRunNotes: "write",
  mergeRunConfig: "transaction",
  addLogNames: "transaction",
  listLogNames: "statement",
  setModelGraph: "write",
  getModelGraph: "statement",
  recordHeartbeat: "write",
  createAlert: "write",
  listAlerts: "statement",
  failStaleRuns: "transaction",
  appendMetricPoints: "transaction",
  listMetricSummaries: "statement",
  listMetricSummariesOfRuns: "statement",
  countMetricsOfRuns: "statement",
  readMetricPoints: "statement",
  sampleMetricPoints: "statement",
  listRunMetricSummaries: "statement",
  listRunLastValues: "statement",
  listMetricNames: "statement",
  appendConsoleLines: "transaction",
  appendDataRows: "transaction",
  listConsoleLines: "statement",
  listDataRows: "statement",
  registerFiles: "transaction",
  getFile: "statement",
  markFileUploaded: "write",
  listFiles: "statement",
  deleteFile: "write",
  getOrCreateSigningSecret: "transaction",
  tryAcquireLease: "write",
  releaseLease: "write",
  createOidcLogin: "transaction",
  takeOidcLogin: "write",
  createSavedView: "transaction",
  getSavedView: "statement",
  listSavedViews: "statement",
  updateSavedView: "transaction",
  deleteSavedView: "write",
  createAlertDestination: "write",
  listAlertDestinations: "statement",
  getAlertDestination: "statement",
  deleteAlertDestination: "write",
  createAlertRule: "transaction",
  getAlertRule: "statement",
  listAlertRules: "statement",
  updateAlertRule: "transaction",
  deleteAlertRule: "write",
  getAlertRunContext: "statement",
  getAlertStates: "statement",
  recordAlertTransitions: "transaction",
  recordAlertEvent: "transaction",
  listStalledCandidates: "statement",
  listAlertEvents: "statement",
  listAlertDeliveries: "statement",
  retryAlertDelivery: "write",
  hasDueAlertDeliveries: "statement",
  claimAlertDeliveries: "transaction",
  finishAlertDelivery: "write",
  deleteRuns: "transaction",
  restoreRuns: "transaction",
  listDeletedRuns: "statement",
  listDeletedProjects: "statement",
  listPurgeableRuns: "statement",
  purgeRun: "transaction",
  listBlobPurges: "statement",
  deleteBlobPurge: "write",
  listPurgeableProjects: "statement",
  purgeProject: "transaction",
  getRetentionPolicy: "statement",
  setRetentionPolicy: "transaction",
  listRetentionPolicies: "statement",
  retireRuns: "transaction",
  appendAuditEntries: "transaction",
  listAuditEntries: "statement",
  exportRows: "statement",
  importRows: "transaction",
  countRows: "statement",
} as const satisfies Record<StoreMethod, "statement" | "write" | "transaction">;

/** The operations every workflow of src/store/workflows/ may ask of a backend. */
export type Operations = AccountOperations &
  RunLifecycleOperations &
  RunWriteOperations &
  RunReadOperations &
  MlflowOperations &
  ModelRegistryOperations &
  LoggedModelOperations &
  MetricReadOperations &
  MetricWriteOperations &
  SavedViewOperations &
  AlertOperations &
  DeletionOperations;

/** Store methods written once as workflows (src/store/workflows/): a backend implements their operations, not them. */
const WORKFLOWS = {
  createOrganization: accounts.createOrganization,
  createApiKey: accounts.createApiKey,
  getApiKeyByHash: accounts.getApiKeyByHash,
  createUser: accounts.createUser,
  getUser: accounts.getUser,
  getUserByEmail: accounts.getUserByEmail,
  getPasswordHash: accounts.getPasswordHash,
  setPasswordHash: accounts.setPasswordHash,
  listUsers: accounts.listUsers,
  setMembership: accounts.setMembership,
  getMembership: accounts.getMembership,
  removeMembership: accounts.removeMembership,
  listMembers: accounts.listMembers,
  listMemberships: accounts.listMemberships,
  createSession: accounts.createSession,
  getSessionByHash: accounts.getSessionByHash,
  getSession: accounts.getSession,
  touchSession: accounts.touchSession,
  setSessionOrganization: accounts.setSessionOrganization,
  endSession: accounts.endSession,
  createInvitation: people.createInvitation,
  getInvitation: people.getInvitation,
  acceptInvitation: people.acceptInvitation,
  recordSignInFailure: people.recordSignInFailure,
  listSignInFailures: people.listSignInFailures,
  clearSignInFailures: people.clearSignInFailures,
  anyPasswordSet: people.anyPasswordSet,
  createProject: mlflow.createProject,
  createMlflowDefaultProject: mlflow.createMlflowDefaultProject,
  updateProjectMlflow: mlflow.updateProjectMlflow,
  updateRunMlflow: mlflow.updateRunMlflow,
  createRegisteredModel: registry.createRegisteredModel,
  createModelVersion: registry.createModelVersion,
  updateRegisteredModel: registry.updateRegisteredModel,
  updateLoggedModel: loggedModels.updateLoggedModel,
  createSavedView: savedViews.createSavedView,
  updateSavedView: savedViews.updateSavedView,
  createAlertDestination: alerts.createAlertDestination,
  listAlertDestinations: alerts.listAlertDestinations,
  getAlertDestination: alerts.getAlertDestination,
  deleteAlertDestination: alerts.deleteAlertDestination,
  createAlertRule: alerts.createAlertRule,
  getAlertRule: alerts.getAlertRule,
  listAlertRules: alerts.listAlertRules,
  updateAlertRule: alerts.updateAlertRule,
  deleteAlertRule: alerts.deleteAlertRule,
  getAlertRunContext: alerts.getAlertRunContext,
  getAlertStates: alerts.getAlertStates,
  recordAlertTransitions: alerts.recordAlertTransitions,
  recordAlertEvent: alerts.recordAlertEvent,
  listStalledCandidates: alerts.listStalledCandidates,
  listAlertEvents: alerts.listAlertEvents,
  listAlertDeliveries: alerts.listAlertDeliveries,
  retryAlertDelivery: alerts.retryAlertDelivery,
  hasDueAlertDeliveries: alerts.hasDueAlertDeliveries,
  claimAlertDeliveries: alerts.claimAlertDeliveries,
  finishAlertDelivery: alerts.finishAlertDelivery,
  createRun: lifecycle.createRun,
  resumeRun: lifecycle.resumeRun,
  updateRunStatus: lifecycle.updateRunStatus,
  failStaleRuns: lifecycle.failStaleRuns,
  mergeRunConfig: runWrites.mergeRunConfig,
  updateRunTags: runWrites.updateRunTags,
  updateRunNotes: runWrites.updateRunNotes,
  setModelGraph: runWrites.setModelGraph,
  addLogNames: runWrites.addLogNames,
  appendConsoleLines: runWrites.appendConsoleLines,
  appendDataRows: runWrites.appendDataRows,
  registerFiles: runWrites.registerFiles,
  listConsoleLines: runReads.listConsoleLines,
  appendMetricPoints: metricWrites.appendMetricPoints,
  listMetricSummaries: metricReads.listMetricSummaries,
  listMetricSummariesOfRuns: metricReads.listMetricSummariesOfRuns,
  readMetricPoints: metricReads.readMetricPoints,
  sampleMetricPoints: metricReads.sampleMetricPoints,
  listRunMetricSummaries: metricReads.listRunMetricSummaries,
  listRunLastValues: metricReads.listRunLastValues,
  listMetricNames: metricReads.listMetricNames,
  deleteRuns: deletion.deleteRuns,
  restoreRuns: deletion.restoreRuns,
  purgeRun: deletion.purgeRun,
  purgeProject: deletion.purgeProject,
  retireRuns: deletion.retireRuns,
} satisfies { [K in StoreMethod]?: (...args: Parameters<Store[K]>) => Workflow<Awaited<ReturnType<Store[K]>>, Operations> };

type BackendMethod = Exclude<StoreMethod, keyof typeof WORKFLOWS>;

/**
 * A backend's own Store functions: each takes the backend's context (a connection, or a transaction
 * on one) first, then the Store method's arguments. Synchronous ones (SQLite) may return the value itself.
 */
export type BackendFunctions<C> = {
  [K in BackendMethod]: (ctx: C, ...args: Parameters<Store[K]>) => Awaited<ReturnType<Store[K]>> | ReturnType<Store[K]>;
};

/** What a backend gives composeStore: how it runs work outside and inside a transaction, and how it runs a workflow. */
export interface Backend<C> {
  connection: StoreConnection;
  functions: BackendFunctions<C>;
  /** Runs work on the connection as it is (SQLite's connection, PostgreSQL's pool). */
  statement<T>(work: (ctx: C) => T | Promise<T>): Promise<T>;
  /** Runs work of one statement that writes on the connection as it is; `statement` when the backend does not tell writes apart. */
  write?<T>(work: (ctx: C) => T | Promise<T>): Promise<T>;
  /** Runs work as one write transaction; its context is the transaction's. */
  transaction<T>(work: (ctx: C) => T | Promise<T>): Promise<T>;
  /** Runs a workflow to its end against this backend's operations on a transaction's context. */
  perform<T>(workflow: Workflow<T, Operations>, ctx: C): T | Promise<T>;
  /** Methods the backend runs its own way (SQLite commits the metric appends of concurrent requests together). */
  overrides?: Partial<Store>;
}

/** The Store of a backend: each method its function or workflow, run as TRANSACTIONS says. */
export function composeStore<C>(backend: Backend<C>): Store {
  type AnyWorkflow = (...args: unknown[]) => Workflow<unknown, Operations>;
  const workflows = new Map(Object.entries(WORKFLOWS) as [string, AnyWorkflow][]);
  const functions = new Map(Object.entries(backend.functions) as [string, (ctx: C, ...args: unknown[]) => unknown][]);
  const methods = new Map<string, unknown>();
  for (const [name, kind] of Object.entries(TRANSACTIONS)) {
    const run = (
      kind === "transaction" ? backend.transaction : kind === "write" ? (backend.write ?? backend.statement) : backend.statement
    ).bind(backend);
    const workflow = workflows.get(name);
    const fn = functions.get(name);
    methods.set(
      name,
      workflow
        ? (...args: unknown[]) => run((ctx) => backend.perform(workflow(...args), ctx))
        : (...args: unknown[]) => run((ctx) => fn!(ctx, ...args)),
    );
  }
  for (const [name, method] of Object.entries(backend.overrides ?? {})) methods.set(name, method);
  const appendAuditEntries = functions.get("appendAuditEntries")!;
  // A method and its audit entries in one transaction: the method's workflow or function on the
  // transaction's context, then the entries its result makes (Store.audited).
  const audited = (name: string, args: unknown[], entries: (result: unknown) => unknown[]) =>
    backend.transaction((ctx) => {
      const workflow = workflows.get(name);
      const result = workflow ? backend.perform(workflow(...args), ctx) : functions.get(name)!(ctx, ...args);
      return then(result, (value) => then(appendAuditEntries(ctx, entries(value)), () => value));
    });
  return {
    ...Object.fromEntries(methods),
    audited,
    ping: () => backend.connection.ping(),
    reclaimSpace: (options) => backend.connection.reclaimSpace(options),
    close: () => backend.connection.close(),
    ...(backend.connection.poolUse ? { poolUse: backend.connection.poolUse } : {}),
  } as Store;
}

/**
 * `next` of a value that is a promise (PostgreSQL) or not (SQLite, whose transaction must run to its
 * end synchronously: awaiting there would commit before `next` ran).
 */
function then<T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
