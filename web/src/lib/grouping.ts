// Grouping runs (issue 23, item 2): the runs of a sweep that share the values of some config keys
// (or their tags) fold into one group: one line per group in every panel (the members' mean or
// median) with a band (min–max or ±1 standard deviation), and one folded row in the runs table with
// the group's values. Pure: the workspace and the table call it with what they loaded.

import { formatValue } from "./format.ts";
/** What a grouping is by: config keys (flattened, `optimizer.name`) and/or the runs' tags. */
export interface Grouping {
  /** `config.<key>` or `tags`, in the order the group label lists them. */
  keys: string[];
  line: "mean" | "median";
  band: "minmax" | "std";
}

export const NO_GROUPING: Grouping = { keys: [], line: "mean", band: "minmax" };
export const TAGS_KEY = "tags";

/** A stored grouping, or none for whatever is malformed. */
export function parseGrouping(stored: unknown): Grouping {
  if (typeof stored !== "object" || stored === null) return NO_GROUPING;
  const record = stored as Record<string, unknown>;
  const keys = Array.isArray(record.keys)
    ? [...new Set(record.keys.filter((key): key is string => typeof key === "string" && (key === TAGS_KEY || key.startsWith("config."))))]
    : [];
  return { keys, line: record.line === "median" ? "median" : "mean", band: record.band === "std" ? "std" : "minmax" };
}

/** What grouping reads of a run. */
export interface GroupableRun {
  id: number;
  tags: readonly string[];
  /** The run's flattened config (own keys only are read). */
  config?: Readonly<Record<string, unknown>>;
}

export interface Group {
  /** The members' values of the grouping keys, as shown: `optimizer=adam · lr=0.01`. */
  label: string;
  runIds: number[];
}

const MISSING = "—";

/** One grouping key's value of a run: its identity (JSON: "1" and 1 differ) and its text (a missing key or no tags reads "—"). */
function keyValue(run: GroupableRun, key: string): { identity: string; text: string } {
  if (key === TAGS_KEY) {
    const text = run.tags.length > 0 ? [...run.tags].sort().join(", ") : MISSING;
    return { identity: JSON.stringify([...run.tags].sort()), text };
  }
  const configKey = key.slice("config.".length);
  if (!run.config || !Object.hasOwn(run.config, configKey)) return { identity: "missing", text: MISSING };
  const value = run.config[configKey];
  return { identity: JSON.stringify(value) ?? "undefined", text: formatValue(value) };
}

/** The runs in groups of equal grouping values, groups in the order their first member comes. */
export function groupRuns(runs: readonly GroupableRun[], keys: readonly string[]): Group[] {
  const groups = new Map<string, Group>();
  for (const run of runs) {
    const values = keys.map((key) => keyValue(run, key));
    const identity = JSON.stringify(values.map((value) => value.identity));
    const group = groups.get(identity);
    if (group) group.runIds.push(run.id);
    else {
      const label = keys.map((key, i) => `${key === TAGS_KEY ? "tags" : key.slice("config.".length)}=${values[i]!.text}`).join(" · ");
      groups.set(identity, { label, runIds: [run.id] });
    }
  }
  return [...groups.values()];
}

/** A member's line: ascending x, null where it has no finite value. */
export interface MemberLine {
  x: readonly number[];
  y: readonly (number | null)[];
}

export interface GroupLine {
  x: number[];
  y: number[];
  lo: number[];
  hi: number[];
  /** Members with a value in each bucket. */
  count: number[];
}

export function median(sorted: readonly number[]): number {
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/**
 * The group's line over `buckets` equal x ranges of all members' points: within a range each
 * member counts once (the mean of its points there), so a member sampled densely weighs no more
 * than one sampled sparsely, and members need not share x values (sampled series, time axes).
 * Each range gives the members' mean or median at the mean x of their points, and the band: the
 * lowest and highest member, or the mean ± one (population) standard deviation.
 */
export function groupLine(members: readonly MemberLine[], grouping: Pick<Grouping, "line" | "band">, buckets = 250): GroupLine {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const member of members)
    for (let i = 0; i < member.x.length; i++)
      if (member.y[i] !== null && member.y[i] !== undefined) {
        first = Math.min(first, member.x[i]!);
        last = Math.max(last, member.x[i]!);
      }
  const line: GroupLine = { x: [], y: [], lo: [], hi: [], count: [] };
  if (first > last) return line;
  const width = (last - first) / buckets || 1;
  const bucketOf = (x: number) => Math.min(buckets - 1, Math.floor((x - first) / width));
  // Per bucket, each member's mean value and x there.
  const values = Array.from({ length: buckets }, () => [] as number[]);
  const xs = Array.from({ length: buckets }, () => [] as number[]);
  for (const member of members) {
    let bucket = -1;
    let sum = 0;
    let xSum = 0;
    let n = 0;
    const flush = () => {
      if (n === 0) return;
      values[bucket]!.push(sum / n);
      xs[bucket]!.push(xSum / n);
    };
    for (let i = 0; i < member.x.length; i++) {
      const y = member.y[i];
      if (y === null || y === undefined) continue;
      const b = bucketOf(member.x[i]!);
      if (b !== bucket) {
        flush();
        bucket = b;
        sum = 0;
        xSum = 0;
        n = 0;
      }
      sum += y;
      xSum += member.x[i]!;
      n++;
    }
    flush();
  }
  for (let b = 0; b < buckets; b++) {
    const here = values[b]!;
    if (here.length === 0) continue;
    const sorted = [...here].sort((p, q) => p - q);
    const average = mean(here);
    const center = grouping.line === "median" ? median(sorted) : average;
    let lo = sorted[0]!;
    let hi = sorted[sorted.length - 1]!;
    if (grouping.band === "std") {
      const deviation = Math.sqrt(mean(here.map((value) => (value - average) ** 2)));
      lo = center - deviation;
      hi = center + deviation;
    }
    line.x.push(mean(xs[b]!));
    line.y.push(center);
    line.lo.push(lo);
    line.hi.push(hi);
    line.count.push(here.length);
  }
  return line;
}

/** A group's value of a summary column: the mean or median of its members' finite values (null when none has one). */
export function groupValue(values: readonly (number | null | undefined)[], line: Grouping["line"]): number | null {
  const finite = values.filter((value): value is number => typeof value === "number" && Number.isFinite(value));
  if (finite.length === 0) return null;
  return line === "median" ? median([...finite].sort((a, b) => a - b)) : mean(finite);
}
