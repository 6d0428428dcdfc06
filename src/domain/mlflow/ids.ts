import { randomBytes } from "node:crypto";

/** A new MLflow run ID: 32 lowercase hex digits (128 random bits), as MLflow's own server makes them. */
export function newMlflowRunId(): string {
  return randomBytes(16).toString("hex");
}

const RUN_ID = /^[0-9a-f]{32}$/;

/** Whether a string is an MLflow run ID as Stepwise gives them (other strings name no run). */
export function isMlflowRunId(value: string): boolean {
  return RUN_ID.test(value);
}

const EXPERIMENT_ID = /^[1-9][0-9]{0,15}$/;

/** An MLflow experiment ID is the project's numeric ID as a decimal string; undefined for anything else. */
export function parseExperimentId(value: string): number | undefined {
  if (!EXPERIMENT_ID.test(value)) return undefined;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : undefined;
}
