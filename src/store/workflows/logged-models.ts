import type { LoggedModel, LoggedModelState, NewLoggedModel } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** The operations of MLflow's logged model workflows (LoggedModelStore). */
export interface LoggedModelOperations {
  /** The model, read locked (PostgreSQL's FOR UPDATE). */
  lockLoggedModel(orgId: string, modelId: string): LoggedModel | undefined;
  writeLoggedModel(modelId: string, state: LoggedModelState, now: number): void;
  getLoggedModel(orgId: string, modelId: string): LoggedModel | undefined;
}

const perform = performer<LoggedModelOperations>();

/** Store.updateLoggedModel: `change` decides on the locked model (status transitions, params, tags, delete). */
export function* updateLoggedModel(
  orgId: string,
  modelId: string,
  change: (state: LoggedModelState) => LoggedModelState,
  now: number,
): Workflow<LoggedModel | undefined, LoggedModelOperations> {
  const current = yield* perform("lockLoggedModel", orgId, modelId);
  if (!current) return undefined;
  const next = change({ status: current.status, params: current.params, tags: current.tags, deletedAt: current.deletedAt });
  yield* perform("writeLoggedModel", modelId, next, now);
  return yield* perform("getLoggedModel", orgId, modelId);
}

/**
 * A new logged model's values in the column order both backends insert them (id, org_id, then the
 * project's ID from its row, name, model_type, source_run_id, params, tags, created_at): the insert
 * reads the project (and the source run) in the organization, so nothing is stored for another's.
 */
export function loggedModelValues(orgId: string, input: NewLoggedModel): unknown[] {
  return [
    input.id,
    orgId,
    input.name,
    input.modelType,
    input.sourceRunId,
    JSON.stringify(input.params),
    JSON.stringify(input.tags),
    input.now,
  ];
}

/** A logged model's changed state in the order both backends write it: status, params, tags, deleted_at, updated_at, then the ID. */
export function loggedModelStateValues(modelId: string, state: LoggedModelState, now: number): unknown[] {
  return [state.status, JSON.stringify(state.params), JSON.stringify(state.tags), state.deletedAt, now, modelId];
}
