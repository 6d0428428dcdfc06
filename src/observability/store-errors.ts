import { DomainError } from "../domain/errors.js";
import { MlflowError } from "../domain/mlflow/errors.js";
import type { Store } from "../store/store.js";
import { storeUnavailability } from "../store/unavailable.js";
import type { ServerMetrics, StoreErrorCause } from "./metrics.js";

/**
 * The store with each failed call counted in stepwise_store_errors_total by cause. A domain
 * refusal thrown inside a store workflow (not found, conflict) is an answer, not a store error.
 * Every method is wrapped once here, so a call costs one more function frame.
 */
export function countingStoreErrors(store: Store, metrics: ServerMetrics): Store {
  const count = (error: unknown): never => {
    if (!(error instanceof DomainError || error instanceof MlflowError)) {
      const cause: StoreErrorCause = storeUnavailability(error)?.cause ?? "other";
      metrics.storeErrors.inc({ cause });
    }
    throw error;
  };
  const wrapped = Object.entries(store).map(([name, value]: [string, unknown]) => {
    if (typeof value !== "function") return [name, value];
    const method = value as (...args: unknown[]) => unknown;
    return [
      name,
      (...args: unknown[]) => {
        let result: unknown;
        try {
          result = method.apply(store, args);
        } catch (error) {
          return count(error);
        }
        return result instanceof Promise ? result.catch(count) : result;
      },
    ];
  });
  return Object.fromEntries(wrapped) as Store;
}
