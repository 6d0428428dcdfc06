import { invalidInput } from "./errors.js";

/**
 * How deeply objects and arrays may nest in any JSON a client sends: request bodies, JSON-text
 * fields (config, metadata, settings), NDJSON lines and JSON query parameters (docs/api.md,
 * "Limits on every request"). Real configs nest a handful of levels; without a bound, a deep value is stored and
 * then overflows the stack of every recursive reader (JSON.stringify included).
 */
export const MAX_JSON_DEPTH = 64;

/** Throws INVALID_INPUT (400) when `value` nests deeper than MAX_JSON_DEPTH. Iterative: any depth is safe to check. */
export function checkJsonDepth(value: unknown, field: string): void {
  if (typeof value !== "object" || value === null) return;
  const pending: [object, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (depth > MAX_JSON_DEPTH) throw invalidInput(`${field}: nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === "object" && child !== null) pending.push([child, depth + 1]);
    }
  }
}
