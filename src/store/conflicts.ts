import { DomainError } from "../domain/errors.js";
import type { Workflow } from "./workflow.js";

// SQLite's extended result code and PostgreSQL's SQLSTATE for a write that breaks a unique constraint.
const UNIQUE_VIOLATIONS = new Set(["SQLITE_CONSTRAINT_UNIQUE", "23505"]);

export function isUniqueViolation(error: unknown): boolean {
  return UNIQUE_VIOLATIONS.has(String((error as { code?: unknown } | null)?.code));
}

/** Runs a workflow whose write may break a unique constraint: that becomes CONFLICT with `message`, nothing written. */
export function* conflictOnUnique<T, P>(work: Workflow<T, P>, message: string): Workflow<T, P> {
  try {
    return yield* work;
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("CONFLICT", message);
    throw error;
  }
}
