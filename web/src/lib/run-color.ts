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

/** WCAG relative luminance of a `#rrggbb` colour. */
export function luminance(color: string): number {
  const channel = (offset: number) => {
    const c = Number.parseInt(color.slice(offset, offset + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
}

/**
 * The colour mixed with white in steps of 5% until its contrast with `background` reaches
 * `minimum`: the same hue, light enough to see. A colour already readable is returned as is.
 */
export function readableOn(color: string, background: string, minimum: number): string {
  const rgb = [1, 3, 5].map((offset) => Number.parseInt(color.slice(offset, offset + 2), 16));
  for (let white = 0; white <= 1; white += 0.05) {
    const mixed = `#${rgb
      .map((c) =>
        Math.round(c + (255 - c) * white)
          .toString(16)
          .padStart(2, "0"),
      )
      .join("")}`;
    if (contrast(mixed, background) >= minimum) return mixed;
  }
  return "#ffffff";
}

/**
 * The dark scheme's surface (web/src/styles.css, --surface under prefers-color-scheme: dark): the
 * palette's dark navy, plum and brown nearly vanish on it, so the dark scheme draws each run in its
 * colour lightened to a 3:1 contrast (WCAG's minimum for graphics).
 */
const DARK_SURFACE = "#1f2937";
export const DARK_RUN_PALETTE = RUN_PALETTE.map((color) => readableOn(color, DARK_SURFACE, 3));

// One query list, read at each call: making one per call (a table and its charts colour thousands of runs) is slow.
const darkScheme = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
const prefersDark = () => darkScheme?.matches ?? false;

/** The colour of a run: a hash of its ID into RUN_PALETTE (its lightened twin in the dark scheme). */
export function runColor(runId: number, dark = prefersDark()): string {
  return (dark ? DARK_RUN_PALETTE : RUN_PALETTE)[mix(runId) % RUN_PALETTE.length]!;
}
