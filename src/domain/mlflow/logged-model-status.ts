/**
 * A logged model's status (MLflow 3). Apart from logged-models.ts because the store's record types
 * name it, and those are read by the web UI's type check, which must not reach Node's modules.
 */
export const LOGGED_MODEL_STATUSES = ["PENDING", "READY", "FAILED"] as const;
export type LoggedModelStatus = (typeof LOGGED_MODEL_STATUSES)[number];
