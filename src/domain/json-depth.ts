import { invalidInput } from "./errors.js";

/**
 * How deeply objects and arrays may nest in any JSON a client sends: request bodies, JSON-text
 * fields (config, metadata, settings), NDJSON lines and JSON query parameters (docs/api.md,
 * "Limits on every request"). Real configs nest a handful of levels; without a bound, a deep value is stored and
 * then overflows the stack of every recursive reader (JSON.stringify included).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Throws INVALID_INPUT (400) when `value` nests deeper than MAX_JSON_DEPTH. Iterative: any depth is
 * safe to check. It runs on every request body (a log-batch holds 1,000 objects), so it allocates
 * nothing per value: two parallel stacks instead of a pair per entry, for…in instead of Object.values
 * (JSON.parse makes plain objects, whose enumerable keys are their own).
 */
export function checkJsonDepth(value: unknown, field: string): void {
  if (typeof value !== "object" || value === null) return;
  const pending: object[] = [value];
  const depths: number[] = [1];
  const push = (child: unknown, depth: number) => {
    if (typeof child !== "object" || child === null) return;
    if (depth > MAX_JSON_DEPTH) throw invalidInput(`${field}: nested deeper than ${MAX_JSON_DEPTH} levels`);
    pending.push(child);
    depths.push(depth);
  };
  while (pending.length > 0) {
    const current = pending.pop() as Record<string, unknown> | unknown[];
    const childDepth = depths.pop()! + 1;
    if (Array.isArray(current)) for (let i = 0; i < current.length; i++) push(current[i], childDepth);
    else for (const key in current) push(current[key], childDepth);
  }
}
