import { invalidInput } from "./errors.js";
import { isPlainObject, type Json } from "./merge.js";
import { compileLinearRegex, ownValue, parseInstant, type FilterableRun } from "./run-view.js";

/**
 * Field filter terms (docs/semantics.md, Run filters): UI-style conditions on one flattened config or
 * system-metadata key. A list of terms is an AND; each term is validated when compiled, and any
 * error is a 400 naming the term by its 0-based index.
 *
 * Semantics:
 * - text: `contains` / `does not contain` / `starts with` / `ends with` are case-insensitive;
 *   `equals` / `is` / `is not` are exact; `regex` is case-sensitive (write `(?i)` to ignore case)
 *   and runs in linear time through re2js.
 *   Non-string stored values are compared through their text: numbers and booleans as String(v)
 *   (so `0.001` "contains" "001"), arrays and objects as their JSON text. A stored null has no text:
 *   only `equals` / `is` / `is not` with a null value match it. Numbers and booleans given as
 *   values are turned into text the same way.
 * - number: values are numbers or numeric strings ("0.5"); stored values are used when they are
 *   numbers or numeric strings, otherwise the (positive) operator does not match.
 *   `is between` / `is not between` take two values, inclusive at both ends, in either order.
 * - date: values and stored values are epoch-millisecond numbers or ISO-8601 strings and compare as
 *   instants (a date-only value is midnight UTC; see parseInstant).
 * - option: `is` / `equals` / `is not` / `is any of` / `is none of` compare exactly, through the same
 *   text as text's exact operators, so the option `3` and `"3"` are the same; null matches stored null.
 * - `exists` / `not exists` (any data type, no values) test whether the key is present, even if null.
 * - Negated operators (`does not contain`, `is not`, `is not between`, `is none of`, `not exists`)
 *   are the exact negation of their positive form, so they also match runs without the key and runs
 *   whose stored value has another type.
 * - Properties other than the five fields are ignored, so clients may carry UI state in a term.
 */
export const FIELD_FILTER_OPERATORS = [
  "contains",
  "does not contain",
  "equals",
  "is",
  "is not",
  "starts with",
  "ends with",
  "regex",
  "is greater than",
  ">",
  "is less than",
  "<",
  "is greater than or equal to",
  ">=",
  "is less than or equal to",
  "<=",
  "is between",
  "is not between",
  "is before",
  "is on or before",
  "is after",
  "is on or after",
  "is any of",
  "is none of",
  "exists",
  "not exists",
] as const;
export type FieldFilterOperator = (typeof FIELD_FILTER_OPERATORS)[number];

export const FIELD_FILTER_DATA_TYPES = ["text", "number", "date", "option"] as const;
export type FieldFilterDataType = (typeof FIELD_FILTER_DATA_TYPES)[number];

export const FIELD_FILTER_SOURCES = ["config", "systemMetadata"] as const;
export type FieldFilterSource = (typeof FIELD_FILTER_SOURCES)[number];

export interface FieldFilterTerm {
  source: FieldFilterSource;
  key: string;
  dataType: FieldFilterDataType;
  operator: FieldFilterOperator;
  values: Json[];
}

/** More terms than anyone builds in a UI; bounds the per-run work of one request. */
export const MAX_FIELD_FILTER_TERMS = 100;

type RunPredicate = (run: FilterableRun) => boolean;
/** Tests a stored value that is present (possibly null). */
type StoredTest = (stored: Json) => boolean;

/**
 * How many values an operator takes: exactly one, exactly two, none, or at least one.
 * `negates` names the positive operator it is the negation of.
 */
interface OperatorRule {
  arity: 0 | 1 | 2 | "many";
  negates?: FieldFilterOperator;
  build?: (values: Json[], term: TermContext) => StoredTest;
}

interface TermContext {
  index: number;
  fail(message: string): never;
}

/** Compiles the already JSON-parsed list of terms; throws INVALID_INPUT (400) on any error. */
export function compileFieldFilters(terms: unknown): (run: FilterableRun) => boolean {
  if (!Array.isArray(terms)) throw invalidInput("fieldFilters: expected a JSON array of terms");
  if (terms.length > MAX_FIELD_FILTER_TERMS) {
    throw invalidInput(`fieldFilters: more than ${MAX_FIELD_FILTER_TERMS} terms`);
  }
  const predicates = terms.map((term, index) => compileTerm(term, index));
  return (run) => predicates.every((predicate) => predicate(run));
}

function compileTerm(raw: unknown, index: number): RunPredicate {
  const context: TermContext = {
    index,
    fail(message) {
      throw invalidInput(`fieldFilters[${index}]: ${message}`);
    },
  };
  const term = parseTerm(raw, context);
  const rules = RULES[term.dataType];
  const rule = rules[term.operator];
  if (rule === undefined) context.fail(`operator '${term.operator}' does not apply to dataType '${term.dataType}'`);
  checkArity(rule, term, context);

  const positive = positiveTest(rule, rules, term, context);
  const read = term.source === "config" ? (run: FilterableRun) => run.config : (run: FilterableRun) => run.systemMetadata;
  const matchesPositive: RunPredicate = (run) => {
    const value = ownValue(read(run), term.key);
    return value !== undefined && positive(value);
  };
  return rule.negates === undefined ? matchesPositive : (run) => !matchesPositive(run);
}

/** The positive test a (possibly negated) operator is built on. */
function positiveTest(rule: OperatorRule, rules: RuleTable, term: FieldFilterTerm, context: TermContext): StoredTest {
  const base = rule.negates === undefined ? rule : rules[rule.negates];
  if (base?.build === undefined) throw new Error(`field filter rule '${term.operator}' has no positive form`);
  return base.build(term.values, context);
}

function parseTerm(raw: unknown, context: TermContext): FieldFilterTerm {
  if (!isPlainObject(raw)) context.fail("expected an object with source, key, dataType, operator and values");
  const { source, key, dataType, operator, values } = raw;
  for (const [name, value] of Object.entries({ source, key, dataType, operator, values })) {
    if (value === undefined) context.fail(`missing '${name}'`);
  }
  if (!isOneOf(source, FIELD_FILTER_SOURCES)) context.fail(`unknown source ${describe(source)} (expected config or systemMetadata)`);
  if (typeof key !== "string" || key === "") context.fail("key must be a non-empty string");
  if (!isOneOf(dataType, FIELD_FILTER_DATA_TYPES)) {
    context.fail(`unknown dataType ${describe(dataType)} (expected ${FIELD_FILTER_DATA_TYPES.join(", ")})`);
  }
  if (!isOneOf(operator, FIELD_FILTER_OPERATORS)) context.fail(`unknown operator ${describe(operator)}`);
  if (!Array.isArray(values)) context.fail("values must be an array");
  return { source, key, dataType, operator, values };
}

function checkArity(rule: OperatorRule, term: FieldFilterTerm, context: TermContext): void {
  const count = term.values.length;
  const { arity } = rule;
  if (arity === "many" ? count >= 1 : count === arity) return;
  const wanted =
    arity === "many" ? "at least one value" : arity === 0 ? "no values" : arity === 1 ? "exactly one value" : "exactly two values";
  context.fail(`operator '${term.operator}' takes ${wanted}, got ${count}`);
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === "string" && (allowed as readonly string[]).includes(value);
}

function describe(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : (JSON.stringify(value) ?? String(value));
}

// ---------------------------------------------------------------------------------------------
// Operator tables per data type
// ---------------------------------------------------------------------------------------------

type RuleTable = Partial<Record<FieldFilterOperator, OperatorRule>>;

const EXISTENCE: RuleTable = {
  exists: { arity: 0, build: () => () => true }, // reached only when the key is present
  "not exists": { arity: 0, negates: "exists" },
};

const TEXT_RULES: RuleTable = {
  contains: { arity: 1, build: textSearch((text, needle) => text.includes(needle)) },
  "does not contain": { arity: 1, negates: "contains" },
  "starts with": { arity: 1, build: textSearch((text, needle) => text.startsWith(needle)) },
  "ends with": { arity: 1, build: textSearch((text, needle) => text.endsWith(needle)) },
  equals: { arity: 1, build: exactText },
  is: { arity: 1, build: exactText },
  "is not": { arity: 1, negates: "is" },
  regex: { arity: 1, build: regexText },
  ...EXISTENCE,
};

const NUMBER_RULES: RuleTable = {
  ">": { arity: 1, build: numberCompare((s, v) => s > v) },
  "is greater than": { arity: 1, build: numberCompare((s, v) => s > v) },
  "<": { arity: 1, build: numberCompare((s, v) => s < v) },
  "is less than": { arity: 1, build: numberCompare((s, v) => s < v) },
  ">=": { arity: 1, build: numberCompare((s, v) => s >= v) },
  "is greater than or equal to": { arity: 1, build: numberCompare((s, v) => s >= v) },
  "<=": { arity: 1, build: numberCompare((s, v) => s <= v) },
  "is less than or equal to": { arity: 1, build: numberCompare((s, v) => s <= v) },
  equals: { arity: 1, build: numberCompare((s, v) => s === v) },
  is: { arity: 1, build: numberCompare((s, v) => s === v) },
  "is not": { arity: 1, negates: "is" },
  "is between": { arity: 2, build: between(toNumber, "a number") },
  "is not between": { arity: 2, negates: "is between" },
  ...EXISTENCE,
};

const DATE_RULES: RuleTable = {
  "is before": { arity: 1, build: dateCompare((s, v) => s < v) },
  "is on or before": { arity: 1, build: dateCompare((s, v) => s <= v) },
  "is after": { arity: 1, build: dateCompare((s, v) => s > v) },
  "is on or after": { arity: 1, build: dateCompare((s, v) => s >= v) },
  equals: { arity: 1, build: dateCompare((s, v) => s === v) },
  is: { arity: 1, build: dateCompare((s, v) => s === v) },
  "is not": { arity: 1, negates: "is" },
  "is between": { arity: 2, build: between(parseInstant, "epoch milliseconds or an ISO-8601 date") },
  "is not between": { arity: 2, negates: "is between" },
  ...EXISTENCE,
};

const OPTION_RULES: RuleTable = {
  is: { arity: 1, build: exactText },
  equals: { arity: 1, build: exactText },
  "is not": { arity: 1, negates: "is" },
  "is any of": { arity: "many", build: exactText },
  "is none of": { arity: "many", negates: "is any of" },
  ...EXISTENCE,
};

const RULES: Record<FieldFilterDataType, RuleTable> = {
  text: TEXT_RULES,
  number: NUMBER_RULES,
  date: DATE_RULES,
  option: OPTION_RULES,
};

// ---------------------------------------------------------------------------------------------
// Text and option
// ---------------------------------------------------------------------------------------------

/** The text a stored value or a filter value is compared through; null has none. */
function toText(value: Json): string | null {
  if (value === null) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

function textSearch(test: (text: string, needle: string) => boolean): NonNullable<OperatorRule["build"]> {
  return (values, context) => {
    const needle = searchableText(values[0] as Json, context).toLowerCase();
    return (stored) => {
      const text = toText(stored);
      return text !== null && test(text.toLowerCase(), needle);
    };
  };
}

/** Exact comparison against any of the values (one for `is`, several for `is any of`). */
function exactText(values: Json[], context: TermContext): StoredTest {
  const wanted = values.map((value) => {
    if (value !== null && typeof value === "object") context.fail("values must be strings, numbers, booleans or null");
    return toText(value);
  });
  return (stored) => wanted.includes(toText(stored));
}

function regexText(values: Json[], context: TermContext): StoredTest {
  const pattern = values[0];
  if (typeof pattern !== "string") context.fail("regex takes a pattern string");
  const test = compileLinearRegex(pattern, false, `fieldFilters[${context.index}]: regex`);
  return (stored) => {
    const text = toText(stored);
    return text !== null && test(text);
  };
}

function searchableText(value: Json, context: TermContext): string {
  const text = value === null || typeof value === "object" ? null : toText(value);
  if (text === null) context.fail("value must be a string");
  return text;
}

// ---------------------------------------------------------------------------------------------
// Number and date
// ---------------------------------------------------------------------------------------------

/** Numbers and numeric strings ("1e-3", " 2 "); undefined for anything else. */
function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

type Parse = (value: unknown) => number | undefined;

function ordered(parse: Parse, expected: string, compare: (stored: number, value: number) => boolean): NonNullable<OperatorRule["build"]> {
  return (values, context) => {
    const bound = parseValue(parse, values[0], expected, context);
    return (stored) => {
      const number = parse(stored);
      return number !== undefined && compare(number, bound);
    };
  };
}

function numberCompare(compare: (stored: number, value: number) => boolean) {
  return ordered(toNumber, "a number", compare);
}

function dateCompare(compare: (stored: number, value: number) => boolean) {
  return ordered(parseInstant, "epoch milliseconds or an ISO-8601 date", compare);
}

/** Inclusive at both ends; the two values may come in either order. */
function between(parse: Parse, expected: string): NonNullable<OperatorRule["build"]> {
  return (values, context) => {
    const [a, b] = values.map((value) => parseValue(parse, value, expected, context)) as [number, number];
    const low = Math.min(a, b);
    const high = Math.max(a, b);
    return (stored) => {
      const number = parse(stored);
      return number !== undefined && number >= low && number <= high;
    };
  };
}

function parseValue(parse: Parse, value: unknown, expected: string, context: TermContext): number {
  const parsed = parse(value);
  if (parsed === undefined) context.fail(`value ${describe(value)} is not ${expected}`);
  return parsed;
}
