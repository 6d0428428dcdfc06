// A run's colour: the same everywhere it is drawn (table swatch, workspace panels, comparison, run
// page), derived from the run's ID alone, never from its position in a list, so a run keeps its
// colour when the table is sorted, filtered or paged.

/** Twenty colours that stay apart on white and on each other (Tableau 10 and its darker partners). */
export const RUN_PALETTE = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#ff7f0e",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#bcbd22",
  "#7f7f7f",
  "#393b79",
  "#ad494a",
  "#637939",
  "#b5651d",
  "#7b4173",
  "#0d6e6e",
  "#c2185b",
  "#3f51b5",
  "#827717",
  "#5d4037",
] as const;

/** A 32-bit integer hash (Murmur3's finalizer): consecutive IDs land far apart in the palette. */
function mix(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The colour of a run: a hash of its ID into RUN_PALETTE. */
export function runColor(runId: number): string {
  return RUN_PALETTE[mix(runId) % RUN_PALETTE.length]!;
}
