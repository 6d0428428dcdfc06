// The sweep table (docs/api.md, "Sweep"): the runs a selection holds, each with the config values
// that differ between them and the summaries of the metrics asked for, in one read for the
// project page's analysis (parallel coordinates, scatter, parameter importance). Pure: which keys
// are shown and how the request's metric list is read.

import { invalidInput } from "./errors.js";
import { type Json, splitKeys } from "./merge.js";
import { parseJsonParameter } from "./run-list.js";

/** Runs a sweep read returns by default, and at most: a sweep of thousands of runs is read whole. */
export const SWEEP_DEFAULT_RUNS = 2000;
export const SWEEP_MAX_RUNS = 5000;
/** Metrics one sweep read summarizes at most (each is one read of the project's summaries). */
export const SWEEP_MAX_METRICS = 50;
/** Config keys that differ a sweep read returns at most, the first in key order: axes beyond it are unreadable. */
export const SWEEP_MAX_KEYS = 100;

/** The `metrics` parameter: a JSON array of distinct metric names, at most SWEEP_MAX_METRICS. */
export function parseSweepMetrics(raw: string | undefined): string[] {
  if (raw === undefined || raw === "") return [];
  const value = parseJsonParameter("metrics", raw);
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string" && name.length > 0 && name.length <= 255))
    throw invalidInput("metrics: must be a JSON array of metric names (1 to 255 characters each)");
  const names = [...new Set(value as string[])];
  if (names.length > SWEEP_MAX_METRICS) throw invalidInput(`metrics: at most ${SWEEP_MAX_METRICS} metrics, got ${names.length}`);
  return names;
}

/**
 * The config keys of a sweep, split: those whose value is not the same in every run (a key missing
 * in some run differs), at most SWEEP_MAX_KEYS in key order, and those every run shares.
 */
export function sweepKeys(configs: readonly Record<string, Json>[]): { differing: string[]; constant: string[]; more: number } {
  const { differing, constant } = splitKeys(configs);
  return { differing: differing.slice(0, SWEEP_MAX_KEYS), constant, more: Math.max(0, differing.length - SWEEP_MAX_KEYS) };
}

/** A run's values of `keys` (own keys only; a key it lacks is left out, which the reader sees as missing). */
export function valuesOf(config: Record<string, Json>, keys: readonly string[]): Record<string, Json> {
  return Object.fromEntries(keys.filter((key) => Object.hasOwn(config, key)).map((key) => [key, config[key]!]));
}
