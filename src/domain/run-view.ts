import { RE2JS, RE2JSException } from "re2js";
import { invalidInput } from "./errors.js";
import type { Json } from "./merge.js";
import type { RunStatus } from "./status.js";

/**
 * A run as the filter grammars of docs/semantics.md (Run filters) see it. Callers build it from the store; the filters
 * themselves are pure, so they can be tested without a database and evaluated in-process.
 */
export interface FilterableRun {
  name: string;
  status: RunStatus;
  tags: string[];
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  heartbeatAt: number | null;
  /** Flattened to dotted keys (`optim.lr`) as `flatten` in merge.ts does: arrays and scalars are leaves. */
  config: Record<string, Json>;
  systemMetadata: Record<string, Json>;
  /** The LAST finite value per metric name; an absent key means the run lacks the metric. */
  summaryMetrics: Record<string, number | null>;
}

/**
 * Reads a flattened key; undefined when the run lacks it (JSON has no undefined, so a stored null
 * stays null). `Object.hasOwn` keeps keys such as `constructor` or `__proto__` from resolving to
 * Object.prototype members.
 */
export function ownValue<T>(values: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(values, key) ? values[key] : undefined;
}

// ---------------------------------------------------------------------------------------------
// Instants shared by both grammars: epoch-millisecond numbers or ISO-8601 strings.
// ---------------------------------------------------------------------------------------------

// Date.parse also accepts free-form text ("March 7") and reads zone-less date-times in the server's
// local zone, so the accepted shape is checked here and the components are converted explicitly.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Epoch milliseconds for a finite number (taken as epoch ms) or an ISO-8601 string; undefined for
 * anything else, including impossible calendar dates such as 2024-02-30. A date-only string is
 * midnight UTC, and a date-time without an offset is read as UTC (never the server's local zone).
 */
export function parseInstant(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value !== "string") return undefined;
  const m = ISO_8601.exec(value.trim());
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number(`${m[7] ?? ""}000`.slice(0, 3));
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (new Date(utc).getUTCDate() !== day) return undefined; // day overflowed into the next month
  const offset = zoneOffsetMs(m[8]);
  return offset === undefined ? undefined : utc - offset;
}

function zoneOffsetMs(zone: string | undefined): number | undefined {
  if (zone === undefined || zone.toUpperCase() === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes) * 60_000;
}

// ---------------------------------------------------------------------------------------------
// Regular expressions shared by both grammars.
// ---------------------------------------------------------------------------------------------

/** Longer patterns are refused; filters are typed by people, and this bounds compile work. */
export const MAX_PATTERN_LENGTH = 1000;

/**
 * Compiles a user-supplied JavaScript-style pattern with re2js, which matches in linear time, so a
 * pattern such as `(a+)+$` cannot stall the server (ReDoS). JavaScript-only syntax (`\u00e9`,
 * `(?<name>…)`, `\cA`) is translated first. Features RE2 cannot run in linear time (backreferences,
 * lookaround) are a 400 that says so. `context` prefixes error messages, e.g. "filter: $regex on 'name'".
 * The returned test is an unanchored search, like RegExp.prototype.test.
 */
export function compileLinearRegex(pattern: string, caseInsensitive: boolean, context: string): (text: string) => boolean {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw invalidInput(`${context}: pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  // translateRegExp turns `\k<name>` into a literal "k<name>", silently changing the meaning, so
  // backreferences are refused before translation rather than left to the RE2 parser.
  if (hasBackreference(pattern)) {
    throw invalidInput(`${context}: backreferences are not supported (patterns run in linear time)`);
  }
  try {
    const re = RE2JS.compile(RE2JS.translateRegExp(pattern), caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    return (text) => re.test(text);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    const reason = error.message.replace(/^error parsing regexp: /, "");
    throw invalidInput(
      `${context}: invalid or unsupported pattern (${reason}); backreferences and lookaround are not supported (patterns run in linear time)`,
    );
  }
}

/** `\1`…`\9` or `\k<name>` outside a character class. */
function hasBackreference(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      if (!inClass && (/[1-9]/.test(next) || (next === "k" && pattern[i + 2] === "<"))) return true;
      i++; // skip the escaped character
    } else if (ch === "[") {
      inClass = true;
    } else if (ch === "]") {
      inClass = false;
    }
  }
  return false;
}
