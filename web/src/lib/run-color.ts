// Run colours. Where runs are drawn together (the project page's table and workspace, compare) the
// shown set is coloured as a whole (assignRunColors): no two of the first 20 share a colour, and a
// run keeps its colour while the set stays the same, whatever the table's order. Alone (the run
// page), a run takes a colour from its ID (runColor). A colour the user picked wins in both.

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

/** A colour the user picked, lightened like the palette in the dark scheme. */
const shownColor = (color: string, dark: boolean) => (dark ? readableOn(color, DARK_SURFACE, 3) : color);

/** The colour of a run drawn alone: the one picked for it, else a hash of its ID into RUN_PALETTE (its lightened twin in the dark scheme). */
export function runColor(runId: number, picked?: string, dark = prefersDark()): string {
  if (picked) return shownColor(picked, dark);
  return (dark ? DARK_RUN_PALETTE : RUN_PALETTE)[mix(runId) % RUN_PALETTE.length]!;
}

/**
 * Colours of runs drawn together. Picked colours are kept; the other runs, in ascending ID order
 * (so sorting the table changes nothing, and a new run takes the next colour), take the palette's
 * colours in turn, first those no picked colour took; past the palette's 20, it starts again, so
 * two runs sharing a colour are 20 runs apart.
 */
export function assignRunColors(runIds: Iterable<number>, picked: ReadonlyMap<number, string>, dark = prefersDark()): Map<number, string> {
  const palette = dark ? DARK_RUN_PALETTE : RUN_PALETTE;
  const ids = [...new Set(runIds)].sort((a, b) => a - b);
  const taken = new Set(ids.flatMap((id) => (picked.has(id) ? [picked.get(id)!.toLowerCase()] : [])));
  const free = RUN_PALETTE.flatMap((color, index) => (taken.has(color) ? [] : [palette[index]!]));
  const order = free.length > 0 ? free : palette;
  const colors = new Map<number, string>();
  let next = 0;
  for (const id of ids) {
    const own = picked.get(id);
    colors.set(id, own ? shownColor(own, dark) : order[next++ % order.length]!);
  }
  return colors;
}

/** Where a project's picked run colours are kept in this browser. */
export const pickedColorsStorageKey = (projectName: string) => `stepwise.runColors.${projectName}`;

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

/** Stored picks, `[[runId, "#rrggbb"], …]`: anything else in the text is left out. */
export function parsePickedColors(text: string | null): Map<number, string> {
  try {
    const stored: unknown = text === null ? [] : JSON.parse(text);
    if (!Array.isArray(stored)) return new Map();
    return new Map(
      stored.filter(
        (pair): pair is [number, string] =>
          Array.isArray(pair) && Number.isSafeInteger(pair[0]) && typeof pair[1] === "string" && HEX_COLOR.test(pair[1]),
      ),
    );
  } catch {
    return new Map();
  }
}

/** The palette's colour at `index`, wrapping (lightened in the dark scheme): for what is coloured in turn, like groups of runs. */
export const paletteColor = (index: number, dark = prefersDark()): string =>
  (dark ? DARK_RUN_PALETTE : RUN_PALETTE)[index % RUN_PALETTE.length]!;
