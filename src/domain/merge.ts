export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Deep merge used for config updates and logger settings: objects merge key by key, arrays and
 * scalars replace, and an explicit null sets the key to null (it does not delete it).
 * Neither input is modified.
 */
export function deepMerge(base: Json | undefined, patch: Json): Json {
  if (!isPlainObject(base) || !isPlainObject(patch)) return patch;
  const merged: { [key: string]: Json } = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    setOwn(merged, key, deepMerge(Object.hasOwn(base, key) ? base[key] : undefined, value));
  }
  return merged;
}

/**
 * Parsed JSON may carry a `__proto__` key; a plain assignment would set the object's prototype
 * and lose the key, so that one is defined as an own data property. Every other key is assigned
 * (defining properties is several times slower, and flatten runs over thousands of configs per list).
 */
export function setOwn(target: Record<string, Json>, key: string, value: Json): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Flattens nested objects to dotted keys; arrays and scalars are leaves.
 * `{a: {b: 1}, c: [1]}` → `{"a.b": 1, "c": [1]}`. Iterative, in the order a recursive walk would
 * take: configs stored before the nesting limit (docs/api.md, "Limits on every request") may be deeper than the stack.
 */
export function flatten(value: Json | undefined): Record<string, Json> {
  const out: Record<string, Json> = {};
  if (!isPlainObject(value)) return out;
  const pending: [string, Json][] = Object.entries(value).reverse();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [path, child] = next;
    if (isPlainObject(child) && Object.keys(child).length > 0) {
      const entries = Object.entries(child);
      for (let i = entries.length - 1; i >= 0; i--) pending.push([`${path}.${entries[i]![0]}`, entries[i]![1]]);
    } else {
      setOwn(out, path, child);
    }
  }
  return out;
}

/**
 * The keys of flattened configs, split: those whose value is not the same in every config (a key
 * some config lacks differs), and those every config has with one value; each list in key order.
 * The sweep read (services/sweep.ts) and the web UI (defaults, compare, grouping) split by it.
 */
export function splitKeys(flats: readonly Record<string, Json>[]): { differing: string[]; constant: string[] } {
  const keys = [...new Set(flats.flatMap((flat) => Object.keys(flat)))].sort();
  const differing: string[] = [];
  const constant: string[] = [];
  for (const key of keys) {
    const seen = new Set(flats.map((flat) => (Object.hasOwn(flat, key) ? JSON.stringify(flat[key]) : "missing")));
    (seen.size > 1 ? differing : constant).push(key);
  }
  return { differing, constant };
}
