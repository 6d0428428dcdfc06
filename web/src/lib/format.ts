// How numbers, times and sizes read in the UI.

import { runDuration } from "../../../src/domain/shared-with-ui.ts";
import type { RunListItem } from "../types.ts";

/** Below this magnitude (and at or above LARGE) a number reads in exponent form, never as a rounded 0. */
const SMALL = 1e-4;
const LARGE = 1e9;

/**
 * The one way the UI writes a number (ticks, hover values, headers, table cells): significant
 * digits at any magnitude, so 1e-6 never reads as 0 and 3.2e9 never as a wall of digits.
 * Integers below 1e9 are exact and grouped; other numbers keep `digits` significant digits,
 * in plain form between 1e-4 and 1e9 and in exponent form (`1.5e-6`, `-4.2e-4`) outside it.
 * Non-finite values read as the API spells their kinds' markers: NaN, +Inf, -Inf.
 */
export function formatNumber(value: number | null | undefined, digits = 5): string {
  if (value === null || value === undefined) return "–";
  if (Number.isNaN(value)) return "NaN";
  if (value === 0) return "0"; // -0 too
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  const magnitude = Math.abs(value);
  if (Number.isInteger(value) && magnitude < LARGE) return value.toLocaleString("en-US");
  if (magnitude !== 0 && (magnitude < SMALL || magnitude >= LARGE)) {
    const [mantissa, exponent] = value.toExponential(digits - 1).split("e") as [string, string];
    return `${trimZeros(mantissa)}e${exponent.replace("+", "")}`;
  }
  // Plain form: toPrecision keeps the significant digits, trimZeros drops the padding ("0.10000").
  const plain = value.toPrecision(digits);
  return plain.includes("e") ? String(Number(plain)) : trimZeros(plain);
}

const trimZeros = (text: string) => (text.includes(".") ? text.replace(/\.?0+$/, "") : text);

/**
 * Axis tick labels: the fewest significant digits (at least 3) that tell every tick apart, so
 * ticks 1.00001 and 1.00002 do not both read 1 and 1e-4 … 1e-6 never read 0.
 */
export function formatTicks(values: readonly number[]): string[] {
  for (let digits = 3; digits < 17; digits++) {
    const labels = values.map((value) => formatNumber(value, digits));
    if (new Set(labels).size === new Set(values).size) return labels;
  }
  return values.map((value) => formatNumber(value, 17));
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "–";
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The time zone offset of a date as `UTC+01:00` (`UTC` at zero). */
function zoneOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return "UTC";
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, "0");
  return `UTC${minutes > 0 ? "+" : "-"}${hours}:${String(Math.abs(minutes) % 60).padStart(2, "0")}`;
}

/** A timestamp in full with its time zone, for hover text: `2026-11-23 18:40:05 UTC+01:00 (Europe/Paris)`. */
export function formatAbsoluteTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  // Read once: making an Intl.DateTimeFormat costs more than the rest (a 50-row table formats 100 times).
  localZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone ?? "";
  return `${formatDate(iso)} ${zoneOffset(new Date(iso))}${localZone ? ` (${localZone})` : ""}`;
}
let localZone: string | undefined;

/** How long ago a timestamp was, as people say it: `just now`, `3 min ago`, `2 h ago`, `5 days ago`. */
export function formatRelativeTime(iso: string | null | undefined, now: number): string {
  if (!iso) return "–";
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return "–";
  if (seconds < 0) return "in the future"; // the server's clock is ahead of this browser's
  if (seconds < 10) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86_400);
  return days === 1 ? "1 day ago" : `${days} days ago`;
}

export function formatDuration(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return "–";
  const seconds = Math.floor(milliseconds / 1000);
  const parts: [number, string][] = [
    [Math.floor(seconds / 86400), "d"],
    [Math.floor((seconds % 86400) / 3600), "h"],
    [Math.floor((seconds % 3600) / 60), "m"],
    [seconds % 60, "s"],
  ];
  const first = parts.findIndex(([amount]) => amount > 0);
  if (first === -1) return "0s";
  return parts
    .slice(first, first + 2)
    .map(([amount, unit]) => `${amount}${unit}`)
    .join(" ");
}

/** A run's duration as the server reckons it (runDuration: to its last status change once finished, to now while it runs). */
export function formatRunDuration(run: Pick<RunListItem, "status" | "createdAt" | "statusUpdated">, now: number): string {
  const { status, createdAt, statusUpdated } = run;
  return formatDuration(
    runDuration(
      { status, createdAt: Date.parse(createdAt), statusUpdated: statusUpdated === null ? null : Date.parse(statusUpdated) },
      now,
    ),
  );
}

export function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export function formatValue(value: unknown): string {
  if (value === undefined) return "";
  if (value === null) return "null";
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}
