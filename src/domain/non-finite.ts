/** The nonFiniteFlags bitmask of spec §2.6: bit0 NaN, bit1 +Infinity, bit2 -Infinity. */
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
