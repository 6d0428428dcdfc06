// Every Store function of this backend, by the Store method it implements (compose.ts, BackendFunctions).
export * from "./audit.js";
export * from "./console-logs.js";
export * from "./copy.js";
export * from "./data-rows.js";
export * from "./files.js";
export * from "./keys.js";
export * from "./metric-reads.js";
export * from "./metrics.js";
export * from "./mlflow.js";
export * from "./oidc-logins.js";
export * from "./model-registry.js";
export * from "./organizations.js";
export * from "./projects.js";
export * from "./run-attributes.js";
export * from "./run-list.js";
export * from "./runs.js";
export * from "./shared-state.js";
export * from "./status.js";
export { createLoggedModel, getLoggedModel, listLoggedModels } from "./logged-models.js";
export { deleteSavedView, getSavedView, listSavedViews } from "./saved-views.js";
export {
  getRetentionPolicy,
  listBlobPurges,
  deleteBlobPurge,
  listDeletedProjects,
  listDeletedRuns,
  listPurgeableProjects,
  listPurgeableRuns,
  listRetentionPolicies,
  setRetentionPolicy,
} from "./deletion.js";
