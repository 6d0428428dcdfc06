import { invalidInput } from "./errors.js";
import { isPlainObject, type Json } from "./merge.js";
import { compileLinearRegex, ownValue, parseInstant, type FilterableRun } from "./run-view.js";
import { RUN_FILTER_GRAMMAR, type LeafOperator } from "./run-filter-grammar.js";
import { RUN_STATUSES, STATUS_ALIASES, type RunStatus } from "./status.js";

// The grammar's names live in a module of their own, which the web UI shares (shared-with-ui.ts).
export { RUN_FILTER_GRAMMAR, type LeafOperator } from "./run-filter-grammar.js";

/**
 * Run filters (docs/semantics.md, Run filters): a MongoDB-style query over runs, compiled once into a
 * predicate that is evaluated in-process.
 *
 * Semantics, following MongoDB unless noted:
 * - The top-level object is an implicit `$and` of its keys; `{}` matches every run.
 * - `{field: value}` means `$eq`; `{field: {$gt: 1, $lt: 5}}` must satisfy every operator.
 * - `$and` / `$or` take a non-empty array of filter objects. `$not` takes ONE filter object and
 *   negates it (`{$not: {status: "FAILED"}}`); for MongoDB familiarity it is also accepted inside a
 *   field, negating an operator object (`{name: {$not: {$regex: "^tmp"}}}`).
 * - A missing key is treated as null for equality, as in MongoDB: `{k: null}` matches runs that lack
 *   `k`, so `$ne` / `$nin` with a non-null value also match runs that lack the key.
 * - Array values (tags, array-valued config leaves) match when the whole array deep-equals the
 *   operand OR any element satisfies the operator (MongoDB's array semantics); `$ne` / `$nin` are the
 *   exact negations, so `{tags: {$ne: "x"}}` means "no tag is x".
 * - `$gt` / `$gte` / `$lt` / `$lte` use type bracketing: numbers compare with numbers and strings with
 *   strings (code-unit order); any other pairing is no match, never an error.
 * - `$regex` is a JavaScript-style pattern, case-sensitive, run by re2js in linear time.
 *   `$options: "i"` may accompany it for case-insensitive matching; `$options` is a modifier of
 *   `$regex`, not a leaf operator, so it is not listed in RUN_FILTER_GRAMMAR.
 * - Fields with a fixed type validate their operands when compiled (a 400 rather than a filter that
 *   can never match): `name` / `tags` take strings, `status` takes a status name, and the time
 *   fields take epoch-ms numbers or ISO-8601 strings (and null, for equality only).
 */

export interface CompiledRunFilter {
  test(run: FilterableRun): boolean;
  /** Metric names referenced through `summaryMetrics.` / `summary_metrics.`, so callers load only those. */
  summaryMetricNames: string[];
}

/** Bounds on what one filter may cost: both apply per filter, and exceeding either is a 400. */
export const MAX_FILTER_DEPTH = 16;
/** Filter objects, field conditions, operators and `$in` / `$nin` list elements all count as nodes. */
export const MAX_FILTER_NODES = 1000;

type Predicate = (run: FilterableRun) => boolean;
type ValueTest = (value: Json | undefined) => boolean;

interface CompileState {
  nodes: number;
  metricNames: Set<string>;
}

/** Compiles the already JSON-parsed `filter` query parameter; throws INVALID_INPUT (400) on any error. */
export function compileRunFilter(filter: unknown): CompiledRunFilter {
  const state: CompileState = { nodes: 0, metricNames: new Set() };
  const test = compileFilterObject(filter, 1, state);
  return { test, summaryMetricNames: [...state.metricNames] };
}

// ---------------------------------------------------------------------------------------------
// Filter objects and boolean operators
// ---------------------------------------------------------------------------------------------

function compileFilterObject(filter: unknown, depth: number, state: CompileState): Predicate {
  if (!isPlainObject(filter)) throw invalidInput("filter: expected a JSON object");
  enter(depth, state);
  const parts = Object.entries(filter).map(([key, value]) => compileClause(key, value, depth, state));
  return allOf(parts);
}

function compileClause(key: string, value: unknown, depth: number, state: CompileState): Predicate {
  if (key === "") throw invalidInput("filter: empty field name");
  if (key.startsWith("$")) return compileBooleanOperator(key, value, depth, state);
  const field = resolveField(key, state);
  countNode(state);
  const test = compileCondition(field, value, depth, state);
  return (run) => test(field.get(run));
}

function compileBooleanOperator(op: string, value: unknown, depth: number, state: CompileState): Predicate {
  switch (op) {
    case "$and":
      return allOf(compileFilterList(op, value, depth, state));
    case "$or":
      return anyOf(compileFilterList(op, value, depth, state));
    case "$not": {
      if (!isPlainObject(value)) throw invalidInput("filter: $not takes one filter object");
      const inner = compileFilterObject(value, depth + 1, state);
      return (run) => !inner(run);
    }
    default:
      if (isLeafOperator(op)) throw invalidInput(`filter: operator '${op}' must be applied to a field`);
      throw invalidInput(`filter: unknown operator '${op}'`);
  }
}

function compileFilterList(op: string, value: unknown, depth: number, state: CompileState): Predicate[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidInput(`filter: ${op} takes a non-empty array of filter objects`);
  }
  return value.map((item) => compileFilterObject(item, depth + 1, state));
}

function allOf(parts: Predicate[]): Predicate {
  return (run) => parts.every((part) => part(run));
}

function anyOf(parts: Predicate[]): Predicate {
  return (run) => parts.some((part) => part(run));
}

function enter(depth: number, state: CompileState): void {
  if (depth > MAX_FILTER_DEPTH) throw invalidInput(`filter: nested deeper than ${MAX_FILTER_DEPTH} levels`);
  countNode(state);
}

function countNode(state: CompileState, count = 1): void {
  state.nodes += count;
  if (state.nodes > MAX_FILTER_NODES) throw invalidInput(`filter: more than ${MAX_FILTER_NODES} terms`);
}

// ---------------------------------------------------------------------------------------------
// Fields
// ---------------------------------------------------------------------------------------------

/**
 * How one field is read and which operands it takes. `operand` validates and normalizes a single
 * operand for an equality or comparison operator (each `$in` element goes through it too).
 */
interface Field {
  label: string;
  get(run: FilterableRun): Json | undefined;
  operators: ReadonlySet<LeafOperator>;
  operand(value: unknown, op: LeafOperator): Json;
}

const ALL_OPERATORS: ReadonlySet<LeafOperator> = new Set(RUN_FILTER_GRAMMAR.leafOperators);
const EQUALITY_OPERATORS: ReadonlySet<LeafOperator> = new Set(["$eq", "$ne", "$in", "$nin"]);
const SET_OPERATORS: ReadonlySet<LeafOperator> = new Set(["$eq", "$ne", "$in", "$nin", "$regex"]);
const ORDER_OPERATORS: ReadonlySet<LeafOperator> = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

function resolveField(key: string, state: CompileState): Field {
  switch (key) {
    case "name":
    case "displayName":
    case "display_name":
      return { label: key, get: (run) => run.name, operators: ALL_OPERATORS, operand: stringOperand(key) };
    case "status":
    case "state":
      // $regex on status tests the canonical upper-case name (RUNNING, COMPLETED, ...).
      return { label: key, get: (run) => run.status, operators: SET_OPERATORS, operand: statusOperand(key) };
    case "tags":
      return { label: key, get: (run) => run.tags, operators: SET_OPERATORS, operand: stringOperand(key) };
    case "createdAt":
    case "created_at":
      return instantField(key, (run) => run.createdAt);
    case "updatedAt":
    case "updated_at":
      return instantField(key, (run) => run.updatedAt);
    case "heartbeatAt":
    case "heartbeat_at":
      return instantField(key, (run) => run.heartbeatAt);
  }
  return resolvePrefixedField(key, state);
}

function resolvePrefixedField(key: string, state: CompileState): Field {
  const prefix = RUN_FILTER_GRAMMAR.fieldPrefixes.find((candidate) => key.startsWith(candidate));
  if (prefix === undefined) throw invalidInput(`filter: unknown field '${key}'`);
  const name = key.slice(prefix.length);
  if (name === "") throw invalidInput(`filter: field '${key}' needs a key after the prefix`);
  switch (prefix) {
    case "config.":
      return jsonField(key, (run) => ownValue<Json>(run.config, name));
    case "systemMetadata.":
      return jsonField(key, (run) => ownValue<Json>(run.systemMetadata, name));
    case "summaryMetrics.":
    case "summary_metrics.":
      state.metricNames.add(name);
      return jsonField(key, (run) => ownValue<Json>(run.summaryMetrics, name));
  }
}

function instantField(label: string, get: (run: FilterableRun) => number | null): Field {
  return {
    label,
    get,
    operators: ORDER_OPERATORS,
    operand(value, op) {
      // null finds runs without the time (a run that never sent a heartbeat); it has no order.
      if (value === null && EQUALITY_OPERATORS.has(op)) return null;
      const instant = parseInstant(value);
      if (instant === undefined) {
        throw invalidInput(`filter: ${op} on '${label}' expects epoch milliseconds or an ISO-8601 date`);
      }
      return instant;
    },
  };
}

/** Config, system metadata and summary metrics hold any JSON, so operands are free-form. */
function jsonField(label: string, get: (run: FilterableRun) => Json | undefined): Field {
  return {
    label,
    get,
    operators: ALL_OPERATORS,
    operand(value, op) {
      if (EQUALITY_OPERATORS.has(op)) return value as Json;
      if (typeof value === "number" || typeof value === "string") return value;
      throw invalidInput(`filter: ${op} on '${label}' expects a number or a string`);
    },
  };
}

function stringOperand(label: string): Field["operand"] {
  return (value, op) => {
    if (typeof value === "string") return value;
    throw invalidInput(`filter: ${op} on '${label}' expects a string`);
  };
}

function statusOperand(label: string): Field["operand"] {
  return (value, op) => {
    const status = typeof value === "string" ? parseStatus(value) : undefined;
    if (status === undefined) {
      const accepted = [...RUN_STATUSES, ...STATUS_ALIASES.keys()].join(", ");
      throw invalidInput(`filter: ${op} on '${label}' expects a status (${accepted})`);
    }
    return status;
  };
}

/** Status names are case-insensitive and include the aliases other trackers use. */
function parseStatus(value: string): RunStatus | undefined {
  const upper = value.toUpperCase();
  const direct = RUN_STATUSES.find((status) => status === upper);
  return direct ?? STATUS_ALIASES.get(value.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// Conditions on one field
// ---------------------------------------------------------------------------------------------

function compileCondition(field: Field, condition: unknown, depth: number, state: CompileState): ValueTest {
  if (!isOperatorObject(condition)) return compileLeaf(field, "$eq", condition, state);
  const keys = Object.keys(condition);
  if (!keys.every((key) => key.startsWith("$"))) {
    throw invalidInput(`filter: '${field.label}' mixes operators with plain keys; use {"$eq": {...}} to match an object`);
  }
  const tests = keys.filter((key) => key !== "$options").map((key) => compileOperator(field, key, condition[key], condition, depth, state));
  if (Object.hasOwn(condition, "$options") && !Object.hasOwn(condition, "$regex")) {
    throw invalidInput(`filter: $options on '${field.label}' is only allowed alongside $regex`);
  }
  return (value) => tests.every((test) => test(value));
}

/** An object with at least one `$` key; plain objects are values compared with `$eq`. */
function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).some((key) => key.startsWith("$"));
}

function compileOperator(
  field: Field,
  op: string,
  operand: unknown,
  condition: Record<string, unknown>,
  depth: number,
  state: CompileState,
): ValueTest {
  if (op === "$not") {
    if (!isOperatorObject(operand)) throw invalidInput(`filter: $not on '${field.label}' takes an operator object`);
    if (depth + 1 > MAX_FILTER_DEPTH) throw invalidInput(`filter: nested deeper than ${MAX_FILTER_DEPTH} levels`);
    const inner = compileCondition(field, operand, depth + 1, state);
    return (value) => !inner(value);
  }
  if (!isLeafOperator(op)) throw invalidInput(`filter: unknown operator '${op}' on '${field.label}'`);
  if (op === "$regex") return compileRegex(field, operand, condition.$options, state);
  return compileLeaf(field, op, operand, state);
}

function compileLeaf(field: Field, op: Exclude<LeafOperator, "$regex">, operand: unknown, state: CompileState): ValueTest {
  countNode(state);
  if (!field.operators.has(op)) throw invalidInput(`filter: operator '${op}' is not supported on '${field.label}'`);
  switch (op) {
    case "$eq":
    case "$ne": {
      const expected = field.operand(operand, op);
      return op === "$eq" ? (value) => matchesEqual(value, expected) : (value) => !matchesEqual(value, expected);
    }
    case "$in":
    case "$nin": {
      if (!Array.isArray(operand)) throw invalidInput(`filter: ${op} on '${field.label}' takes an array`);
      countNode(state, operand.length);
      const list = operand.map((item) => field.operand(item, op));
      const matchesAny: ValueTest = (value) => list.some((expected) => matchesEqual(value, expected));
      return op === "$in" ? matchesAny : (value) => !matchesAny(value);
    }
    default: {
      const bound = field.operand(operand, op) as number | string;
      return (value) => someElement(value, (item) => compareBracketed(item, op, bound));
    }
  }
}

function compileRegex(field: Field, pattern: unknown, options: unknown, state: CompileState): ValueTest {
  countNode(state);
  if (!field.operators.has("$regex")) throw invalidInput(`filter: operator '$regex' is not supported on '${field.label}'`);
  if (typeof pattern !== "string") throw invalidInput(`filter: $regex on '${field.label}' expects a pattern string`);
  if (options !== undefined && options !== "" && options !== "i") {
    throw invalidInput(`filter: $options on '${field.label}' supports only "i"`);
  }
  const test = compileLinearRegex(pattern, options === "i", `filter: $regex on '${field.label}'`);
  return (value) => someElement(value, (item) => typeof item === "string" && test(item));
}

function isLeafOperator(op: string): op is LeafOperator {
  return (RUN_FILTER_GRAMMAR.leafOperators as readonly string[]).includes(op);
}

// ---------------------------------------------------------------------------------------------
// Value semantics (MongoDB-style)
// ---------------------------------------------------------------------------------------------

/** A missing value equals null; an array also matches when one of its elements equals the operand. */
function matchesEqual(value: Json | undefined, expected: Json): boolean {
  if (value === undefined) return expected === null;
  if (deepEqual(value, expected)) return true;
  return Array.isArray(value) && value.some((item) => deepEqual(item, expected));
}

/** Applies a scalar test to the value, or to each element when the value is an array. */
function someElement(value: Json | undefined, test: (item: Json) => boolean): boolean {
  if (value === undefined) return false;
  return Array.isArray(value) ? value.some(test) : test(value);
}

/** Type bracketing: only number-number and string-string pairs are ordered; anything else is no match. */
function compareBracketed(value: Json, op: LeafOperator, bound: number | string): boolean {
  if (typeof value !== typeof bound || (typeof value !== "number" && typeof value !== "string")) return false;
  switch (op) {
    case "$gt":
      return value > bound;
    case "$gte":
      return value >= bound;
    case "$lt":
      return value < bound;
    case "$lte":
      return value <= bound;
    default:
      return false;
  }
}

/** Structural JSON equality; object key order does not matter. */
function deepEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i] as Json));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key] as Json, b[key] as Json));
}
