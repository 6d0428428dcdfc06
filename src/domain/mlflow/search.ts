import { RE2JS } from "re2js";
import { decodePageToken, encodePageToken } from "../page-token.js";
import { DATASET_KEYS } from "./datasets.js";
import { inMlflowTerms, invalidParameter } from "./errors.js";
import { LIMITS } from "./model.js";

/**
 * MLflow's run search grammar (docs/api.md, "MLflow's REST API: search"): clauses
 * `<entity>.<key> <comparator> <value>` joined by AND, where entity is metrics, params, tags,
 * attributes or datasets (and MLflow's aliases); keys may be quoted with "", '' or backticks.
 * Comparators per entity as MLflow allows them (mlflow/utils/search_utils.py). Pure: parsing,
 * matching, ordering and page tokens; no I/O.
 */

export type Entity = "metric" | "param" | "tag" | "attribute" | "dataset";
export type Comparator = "=" | "!=" | ">" | ">=" | "<" | "<=" | "LIKE" | "ILIKE" | "IN" | "NOT IN" | "IS NULL" | "IS NOT NULL";

export interface Clause {
  entity: Entity;
  /**
   * For attributes, the canonical name (run_id, run_name, status, user_id, start_time, end_time,
   * artifact_uri); for datasets, `name`, `digest` or `context` (an input's `mlflow.data.context` tag).
   */
  key: string;
  comparator: Comparator;
  /** A number for metrics and numeric attributes; a string, or strings for IN; "" for IS NULL and IS NOT NULL. */
  value: number | string | string[];
}

export interface OrderTerm {
  entity: Entity;
  key: string;
  ascending: boolean;
}

const ENTITY_ALIASES = new Map<string, Entity>([
  ["metric", "metric"],
  ["metrics", "metric"],
  ["parameter", "param"],
  ["parameters", "param"],
  ["param", "param"],
  ["params", "param"],
  ["tag", "tag"],
  ["tags", "tag"],
  ["attribute", "attribute"],
  ["attributes", "attribute"],
  ["attr", "attribute"],
  ["run", "attribute"],
  ["dataset", "dataset"],
  ["datasets", "dataset"],
]);

const ATTRIBUTE_ALIASES = new Map<string, string>([
  ["run_id", "run_id"],
  ["run_name", "run_name"],
  ["run name", "run_name"],
  ["Run name", "run_name"],
  ["Run Name", "run_name"],
  ["status", "status"],
  ["user_id", "user_id"],
  ["start_time", "start_time"],
  ["created", "start_time"],
  ["Created", "start_time"],
  ["end_time", "end_time"],
  ["artifact_uri", "artifact_uri"],
]);

export const NUMERIC_ATTRIBUTES: ReadonlySet<string> = new Set(["start_time", "end_time"]);

/** Which attributes a search knows, and whether it filters on datasets: runs' by default; experiment search passes its own. */
export interface AttributeSet {
  names: ReadonlyMap<string, string>;
  numeric: ReadonlySet<string>;
  datasets: boolean;
  /** Whether params and tags take IS NULL and IS NOT NULL (MLflow 3's run and experiment searches; not the registry's). */
  nullTests?: boolean;
}

export const RUN_ATTRIBUTES: AttributeSet = { names: ATTRIBUTE_ALIASES, numeric: NUMERIC_ATTRIBUTES, datasets: true, nullTests: true };

export const EXPERIMENT_ATTRIBUTES: AttributeSet = {
  names: new Map([
    ["name", "name"],
    ["experiment_id", "experiment_id"],
    ["creation_time", "creation_time"],
    ["last_update_time", "last_update_time"],
  ]),
  numeric: new Set(["creation_time", "last_update_time"]),
  datasets: false,
  nullTests: true,
};

const NUMERIC_COMPARATORS = new Set<Comparator>(["=", "!=", ">", ">=", "<", "<="]);
const STRING_COMPARATORS = new Set<Comparator>(["=", "!=", "LIKE", "ILIKE"]);
/** Params and tags where the search allows null tests: whether the run (or experiment) has the key at all. */
const NULLABLE_COMPARATORS = new Set<Comparator>([...STRING_COMPARATORS, "IS NULL", "IS NOT NULL"]);
/** String attributes and datasets: MLflow's VALID_STRING_ATTRIBUTE_COMPARATORS and VALID_DATASET_COMPARATORS. */
const STRING_LIST_COMPARATORS = new Set<Comparator>(["=", "!=", "LIKE", "ILIKE", "IN", "NOT IN"]);

type Token =
  | { kind: "word"; text: string }
  | { kind: "string"; text: string; quote: string }
  | { kind: "number"; value: number; text: string }
  | { kind: "op"; text: string }
  | { kind: "punct"; text: string };

// Sticky patterns read at the cursor without copying the rest of the filter (a slice per token
// made tokenizing quadratic in the filter's length).
const OPERATOR = /(>=|<=|!=|<>|=|>|<)/y;
const NUMBER = /[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(?![\w.])/y;
const WORD = /[\w.\-:/]+/y;

function readAt(pattern: RegExp, input: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(input)?.[0];
}

/** Splits a filter into tokens; throws INVALID_PARAMETER_VALUE on anything it cannot read. */
function tokenize(input: string): Token[] {
  if (input.length > LIMITS.filterLength) throw invalidParameter(`Invalid filter: it is longer than ${LIMITS.filterLength} characters`);
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'" || c === '"' || c === "`") {
      let j = i + 1;
      let text = "";
      while (j < input.length && input[j] !== c) {
        // A doubled quote inside a quoted text is one quote character (SQL's escape).
        text += input[j];
        j++;
        if (input[j] === c && input[j + 1] === c) {
          text += c;
          j += 2;
        }
      }
      if (j >= input.length) throw invalidParameter(`Invalid filter '${input}': unterminated quoted text`);
      tokens.push({ kind: "string", text, quote: c });
      i = j + 1;
      continue;
    }
    const op = readAt(OPERATOR, input, i);
    if (op) {
      tokens.push({ kind: "op", text: op === "<>" ? "!=" : op });
      i += op.length;
      continue;
    }
    if (c === "(" || c === ")" || c === ",") {
      tokens.push({ kind: "punct", text: c });
      i++;
      continue;
    }
    const number = readAt(NUMBER, input, i);
    if (number) {
      tokens.push({ kind: "number", value: Number(number), text: number });
      i += number.length;
      continue;
    }
    const word = readAt(WORD, input, i);
    if (word) {
      tokens.push({ kind: "word", text: word });
      i += word.length;
      continue;
    }
    throw invalidParameter(`Invalid filter '${input}': unexpected character '${c}'`);
  }
  return tokens;
}

/**
 * An identifier: `entity.key`, the key bare or quoted right after the dot (`metrics."my key"`).
 * Bare words with a dot arrive as one word token; a quoted key as word `entity.` plus a string.
 */
function readIdentifier(
  tokens: Token[],
  at: number,
  source: string,
  attributes: AttributeSet,
): { entity: Entity; key: string; next: number } {
  const first = tokens[at];
  let entity: Entity | undefined;
  let key: string;
  let next = at + 1;
  if (first?.kind === "string" && first.quote !== "'") {
    // A quoted name alone is an attribute, as in MLflow (`"Run Name" = 'x'`).
    entity = "attribute";
    key = first.text;
  } else if (first?.kind === "word") {
    const dot = first.text.indexOf(".");
    if (dot === -1) {
      entity = "attribute";
      key = first.text;
    } else {
      entity = ENTITY_ALIASES.get(first.text.slice(0, dot).toLowerCase());
      if (!entity || (entity === "dataset" && !attributes.datasets))
        throw invalidParameter(
          `Invalid entity type '${first.text.slice(0, dot)}' in '${source}': expected metrics, params, tags${attributes.datasets ? ", datasets" : ""} or attributes`,
        );
      key = first.text.slice(dot + 1);
      if (key === "") {
        const quoted = tokens[next];
        if (quoted?.kind !== "string") throw invalidParameter(`Invalid identifier '${first.text}' in '${source}': the key is missing`);
        key = quoted.text;
        next++;
      }
    }
  } else {
    throw invalidParameter(`Invalid filter '${source}': expected an identifier like metrics.<key>`);
  }
  if (key === "") throw invalidParameter(`Invalid identifier in '${source}': empty key`);
  if (entity === "attribute") {
    const canonical = attributes.names.get(key);
    if (!canonical)
      throw invalidParameter(
        `Invalid attribute key '${key}' specified. Valid keys are ${[...new Set(attributes.names.values())].join(", ")}`,
      );
    key = canonical;
  }
  if (entity === "dataset" && !DATASET_KEYS.has(key))
    throw invalidParameter(`Invalid dataset key '${key}' specified. Valid keys are ${[...DATASET_KEYS].join(", ")}`);
  return { entity, key, next };
}

/** Parses a whole filter string; an empty or blank filter is no clause. */
export function parseFilter(filter: string | undefined, attributes: AttributeSet = RUN_ATTRIBUTES): Clause[] {
  if (filter === undefined || filter.trim() === "") return [];
  const tokens = tokenize(filter);
  const clauses: Clause[] = [];
  let i = 0;
  for (;;) {
    const { entity, key, next } = readIdentifier(tokens, i, filter, attributes);
    i = next;
    const comparator = readComparator(tokens, i, filter);
    i += comparator.length;
    const numeric = entity === "metric" || (entity === "attribute" && attributes.numeric.has(key));
    const allowed = numeric
      ? NUMERIC_COMPARATORS
      : entity === "attribute" || entity === "dataset"
        ? STRING_LIST_COMPARATORS
        : attributes.nullTests
          ? NULLABLE_COMPARATORS
          : STRING_COMPARATORS;
    if (!allowed.has(comparator.op))
      throw invalidParameter(
        `Invalid comparator '${comparator.op}' for ${entity} '${key}' in '${filter}'. Only ${[...allowed].join(", ")} are allowed`,
      );
    let value: Clause["value"];
    if (comparator.op === "IS NULL" || comparator.op === "IS NOT NULL") {
      value = "";
    } else if (comparator.op === "IN" || comparator.op === "NOT IN") {
      ({ value, next: i } = readList(tokens, i, filter));
    } else {
      const token = tokens[i++];
      if (numeric) {
        if (token?.kind !== "number") throw invalidParameter(`Expected a numeric value for ${entity} '${key}' in '${filter}'`);
        value = token.value;
      } else {
        if (token?.kind !== "string" || token.quote === "`")
          throw invalidParameter(`Expected a quoted string value for ${entity} '${key}' in '${filter}'`);
        value = token.text;
      }
    }
    clauses.push({ entity, key, comparator: comparator.op, value });
    if (clauses.length > LIMITS.filterClauses)
      throw invalidParameter(`Invalid filter: it has more than ${LIMITS.filterClauses} clauses joined by AND`);
    if (i >= tokens.length) return clauses;
    const and = tokens[i];
    if (and?.kind !== "word" || and.text.toUpperCase() !== "AND")
      throw invalidParameter(`Invalid filter '${filter}': clauses must be joined by AND (OR is not supported)`);
    i++;
  }
}

function readComparator(tokens: Token[], at: number, source: string): { op: Comparator; length: number } {
  const token = tokens[at];
  if (token?.kind === "op") return { op: token.text as Comparator, length: 1 };
  if (token?.kind === "word") {
    const word = token.text.toUpperCase();
    if (word === "LIKE" || word === "ILIKE" || word === "IN") return { op: word, length: 1 };
    const wordAt = (k: number) => (tokens[at + k]?.kind === "word" ? (tokens[at + k] as { text: string }).text.toUpperCase() : undefined);
    if (word === "NOT" && wordAt(1) === "IN") return { op: "NOT IN", length: 2 };
    if (word === "IS" && wordAt(1) === "NULL") return { op: "IS NULL", length: 2 };
    if (word === "IS" && wordAt(1) === "NOT" && wordAt(2) === "NULL") return { op: "IS NOT NULL", length: 3 };
  }
  throw invalidParameter(
    `Invalid filter '${source}': expected a comparator (=, !=, >, >=, <, <=, LIKE, ILIKE, IN, NOT IN, IS NULL, IS NOT NULL)`,
  );
}

function readList(tokens: Token[], at: number, source: string): { value: string[]; next: number } {
  if (tokens[at]?.kind !== "punct" || (tokens[at] as { text: string }).text !== "(")
    throw invalidParameter(`Invalid filter '${source}': IN expects a list like ('a', 'b')`);
  const values: string[] = [];
  let i = at + 1;
  for (;;) {
    const token = tokens[i++];
    if (token?.kind !== "string" || token.quote === "`") throw invalidParameter(`Invalid filter '${source}': IN lists hold quoted strings`);
    values.push(token.text);
    const sep = tokens[i++];
    if (sep?.kind === "punct" && sep.text === ")") return { value: values, next: i };
    if (sep?.kind !== "punct" || sep.text !== ",") throw invalidParameter(`Invalid filter '${source}': IN lists are separated by commas`);
  }
}

/**
 * SQL LIKE as a linear-time matcher (re2js, as Stepwise's own `$regex`): % any text, _ one
 * character, everything else literal. A backtracking RegExp took ~7x longer per extra `%`
 * (`'%a%a%a%a%a%a%a%b'` over 60 characters froze the server for 25 s); RE2 never backtracks.
 */
export function likePattern(pattern: string, caseInsensitive: boolean): (text: string) => boolean {
  let source = "";
  let literal = "";
  const flush = () => {
    if (literal !== "") source += RE2JS.quote(literal);
    literal = "";
  };
  for (const ch of pattern) {
    if (ch === "%" || ch === "_") {
      flush();
      source += ch === "%" ? ".*" : ".";
    } else literal += ch;
  }
  flush();
  const re = RE2JS.compile(source, RE2JS.DOTALL | (caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0));
  return (text) => re.matches(text);
}

/** What a clause reads of a run: a value (undefined when it has none), or a value per dataset input for `datasets.` clauses. */
export type ClauseValue = number | string | undefined | readonly string[];

/**
 * A compiled clause: true when a run's value matches; a run without the value never matches. A
 * `datasets.` clause matches a run when one of its inputs does, `!=` and `NOT IN` included, as on
 * MLflow's server (SqlAlchemyStore joins the run to the inputs that satisfy the clause): a run
 * without datasets matches none.
 */
export function compileClause(clause: Clause): (value: ClauseValue) => boolean {
  const one = compileValueTest(clause);
  if (clause.entity === "dataset") return (value) => Array.isArray(value) && value.some(one);
  return (value) => !Array.isArray(value) && one(value as number | string | undefined);
}

function compileValueTest(clause: Clause): (value: number | string | undefined) => boolean {
  const { comparator, value } = clause;
  if (comparator === "IS NULL") return (v) => v === undefined;
  if (comparator === "IS NOT NULL") return (v) => v !== undefined;
  if (comparator === "LIKE" || comparator === "ILIKE") {
    const matches = likePattern(value as string, comparator === "ILIKE");
    return (v) => typeof v === "string" && matches(v);
  }
  if (comparator === "IN" || comparator === "NOT IN") {
    const set = new Set(value as string[]);
    const want = comparator === "IN";
    return (v) => v !== undefined && set.has(String(v)) === want;
  }
  const target = value as number | string;
  switch (comparator) {
    case "=":
      return (v) => v !== undefined && v === target;
    case "!=":
      return (v) => v !== undefined && v !== target;
    case ">":
      return (v) => v !== undefined && v > target;
    case ">=":
      return (v) => v !== undefined && v >= target;
    case "<":
      return (v) => v !== undefined && v < target;
    default:
      return (v) => v !== undefined && v <= target;
  }
}

/** Parses MLflow's order_by clauses (`metrics.loss ASC`, `attributes.start_time DESC`, quoted keys allowed). */
export function parseOrderBy(orderBy: readonly string[], attributes: AttributeSet = RUN_ATTRIBUTES): OrderTerm[] {
  if (orderBy.length > LIMITS.orderByTerms)
    throw invalidParameter(`Invalid value for parameter 'order_by': at most ${LIMITS.orderByTerms} terms, got ${orderBy.length}`);
  return orderBy.map((text) => {
    const tokens = tokenize(text);
    const { entity, key, next } = readIdentifier(tokens, 0, text, attributes);
    // As MLflow's server: a run has many datasets, so none of them is a sort key.
    if (entity === "dataset") throw invalidParameter(`Invalid order_by clause '${text}': runs are not ordered by datasets`);
    let ascending = true;
    if (next < tokens.length) {
      const direction = tokens[next];
      const word = direction?.kind === "word" ? direction.text.toUpperCase() : "";
      if ((word !== "ASC" && word !== "DESC") || next + 1 < tokens.length)
        throw invalidParameter(`Invalid order_by clause '${text}'. Could not be parsed.`);
      ascending = word === "ASC";
    }
    return { entity, key, ascending };
  });
}

/** One value of a run's sort key: missing values sort last whatever the direction, NaN after every number. */
export type SortValue = number | string | null;

/** Compares two values of one order term; `null` (missing) is always last. */
export function compareSortValues(a: SortValue, b: SortValue, ascending: boolean): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  let c: number;
  if (typeof a === "number" && typeof b === "number") {
    const an = Number.isNaN(a);
    const bn = Number.isNaN(b);
    c = an || bn ? (an === bn ? 0 : an ? 1 : -1) : a < b ? -1 : a > b ? 1 : 0;
  } else {
    const as = String(a);
    const bs = String(b);
    c = as < bs ? -1 : as > bs ? 1 : 0;
  }
  return ascending ? c : -c;
}

/**
 * The full order of a search: the requested terms, then start time (newest first) and run ID, so
 * every run has one place and paging by the last run's key never repeats or skips a run.
 */
export function compareKeys(a: readonly SortValue[], b: readonly SortValue[], terms: readonly OrderTerm[]): number {
  for (let i = 0; i < a.length; i++) {
    const ascending = i < terms.length ? terms[i]!.ascending : i !== terms.length;
    const c = compareSortValues(a[i]!, b[i]!, ascending);
    if (c !== 0) return c;
  }
  return 0;
}

/** A page token: the sort key of the last run of the page (domain/page-token.ts; NaN travels as a string mark). */
export function encodeSearchToken(key: readonly SortValue[]): string {
  return encodePageToken({ after: key.map((v) => (typeof v === "number" && !Number.isFinite(v) ? { n: String(v) } : v)) });
}

export function decodeSearchToken(token: string | undefined, length: number): SortValue[] | undefined {
  if (token === undefined || token === "") return undefined;
  const { after } = inMlflowTerms(() => decodePageToken(token));
  if (!Array.isArray(after) || after.length !== length) throw invalidParameter("Invalid page token: it does not belong to this search");
  return after.map((v: unknown) => {
    if (v === null || typeof v === "number" || typeof v === "string") return v;
    if (typeof v === "object" && typeof (v as { n?: unknown }).n === "string") return Number((v as { n: string }).n);
    throw invalidParameter("Invalid page token");
  });
}
