import type { LoggedModel, LoggedModelState } from "../store.js";
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
