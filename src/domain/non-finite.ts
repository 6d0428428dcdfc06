/** The nonFiniteFlags bitmask (docs/semantics.md, Metrics: non-finite values): bit0 NaN, bit1 +Infinity, bit2 -Infinity. */
export function nonFiniteFlags(value: number): number {
  if (Number.isNaN(value)) return 1;
  if (value === Infinity) return 2;
  if (value === -Infinity) return 4;
  return 0;
}

/** JSON cannot carry NaN or ±Infinity: such a value is sent as 0 with its flag set. */
export function finiteOrZero(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

export const VALUE_FLAGS = ["NaN", "Inf", "-Inf", ""] as const;
export type ValueFlag = (typeof VALUE_FLAGS)[number];

/** The same fact as nonFiniteFlags, spelled as the Pluto server does for clients written against it. */
export function valueFlag(value: number): ValueFlag {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Inf";
  if (value === -Infinity) return "-Inf";
  return "";
}

/** The valueFlag a nonFiniteFlags bitmask stands for (the batch read sends the flags alone). */
export function valueFlagOfFlags(flags: number): ValueFlag {
  if (flags & 1) return "NaN";
  if (flags & 2) return "Inf";
  if (flags & 4) return "-Inf";
  return "";
}
