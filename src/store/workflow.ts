/**
 * Store workflows written once for every backend (docs/architecture.md, "One write path").
 *
 * better-sqlite3's transactions are synchronous and node-postgres's are not, so a workflow shared by
 * both cannot be an async function. It is a generator instead: it decides (what a create consists
 * of, whether a status write applies, which log names a batch adds) and yields each operation it
 * needs from the backend — one read or one write in the backend's own SQL — receiving its result.
 * SQLite runs it to the end synchronously inside its transaction (`runSync`); PostgreSQL awaits
 * each operation inside its own (`runAsync`). The rules live in the workflow; a backend only
 * implements the operations, each a statement or two of its dialect.
 */

/** One operation a workflow asks of its backend: a method of the backend's operations and its arguments. */
export interface Operation<P> {
  name: keyof P;
  args: unknown[];
}

/** A workflow over operations P that ends with a T. */
export type Workflow<T, P> = Generator<Operation<P>, T, unknown>;

type Method = (...args: never[]) => unknown;
type Args<F> = F extends (...args: infer A) => unknown ? A : never;
type Result<F> = F extends (...args: never[]) => infer R ? R : never;

/** A backend's operations as PostgreSQL implements them: each returns a promise of what the synchronous form returns. */
export type Async<P> = { [K in keyof P]: P[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never };

/**
 * The typed `perform` of a set of operations: inside a workflow, `yield* perform("getRun", orgId, runId)`
 * asks the backend for one operation and evaluates to its result.
 */
export function performer<P extends { [K in keyof P]: Method }>() {
  return function* perform<K extends keyof P>(name: K, ...args: Args<P[K]>): Workflow<Result<P[K]>, P> {
    return (yield { name, args }) as Result<P[K]>;
  };
}

function apply<P>(operations: object, { name, args }: Operation<P>): unknown {
  return (Reflect.get(operations, name) as (...args: unknown[]) => unknown).apply(operations, args);
}

/** Runs a workflow to its end against synchronous operations (SQLite, inside the caller's transaction). */
export function runSync<T, P>(workflow: Workflow<T, P>, operations: P): T {
  let step = workflow.next();
  while (!step.done) {
    let result: unknown;
    try {
      result = apply(operations as object, step.value);
    } catch (error) {
      step = workflow.throw(error);
      continue;
    }
    step = workflow.next(result);
  }
  return step.value;
}

/** Runs a workflow to its end against asynchronous operations (PostgreSQL, inside the caller's transaction). */
export async function runAsync<T, P>(workflow: Workflow<T, P>, operations: Async<P>): Promise<T> {
  let step = workflow.next();
  while (!step.done) {
    let result: unknown;
    try {
      result = await apply(operations as object, step.value);
    } catch (error) {
      step = workflow.throw(error);
      continue;
    }
    step = workflow.next(result);
  }
  return step.value;
}
