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

/**
 * MLflow's default experiment: ID "0", named "Default". MLflow's client uses it whenever no
 * experiment is set (`mlflow.start_run()` alone), and MLflow's server always has it. In Stepwise it
 * is a project like any other, the one each organization has marked as its default (stored with the
 * project, docs/decisions.md, "MLflow's protocol").
 */
export const DEFAULT_EXPERIMENT_ID = "0";
export const DEFAULT_EXPERIMENT_NAME = "Default";

/** What an experiment ID names: the organization's default experiment, or a project by its ID. */
export type ExperimentRef = { default: true } | { default: false; projectId: number };

const EXPERIMENT_ID = /^[1-9][0-9]{0,15}$/;

/**
 * The one mapping from MLflow's experiment IDs to Stepwise's projects, and back (experimentIdOf):
 * "0" is the organization's default experiment, any other ID is the project's numeric ID as a
 * decimal string; undefined for anything else.
 */
export function parseExperimentId(value: string): ExperimentRef | undefined {
  if (value === DEFAULT_EXPERIMENT_ID) return { default: true };
  if (!EXPERIMENT_ID.test(value)) return undefined;
  const projectId = Number(value);
  return Number.isSafeInteger(projectId) ? { default: false, projectId } : undefined;
}

/** The experiment ID MLflow's client sees for a project: "0" for the organization's default, the project's ID otherwise. */
export function experimentIdOf(projectId: number, isDefault: boolean): string {
  return isDefault ? DEFAULT_EXPERIMENT_ID : String(projectId);
}

/**
 * Whether an experiment ID names the project. The default answers to "0" and to its project's ID
 * too: a project adopted as the default (it was named "Default" before) keeps the ID it was known by.
 */
export function namesProject(experimentId: string, projectId: number, isDefault: boolean): boolean {
  const ref = parseExperimentId(experimentId);
  if (!ref) return false;
  return ref.default ? isDefault : ref.projectId === projectId;
}
