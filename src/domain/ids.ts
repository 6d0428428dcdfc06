import Sqids from "sqids";

// Default alphabet, minimum length 5: 1 ↔ "UkLWZ", 42 ↔ "JgaEB" (docs/semantics.md, Identifiers).
const sqids = new Sqids({ minLength: 5 });

export function encodeRunId(runId: number): string {
  return sqids.encode([runId]);
}

/**
 * Returns the run ID of a canonical encoding of exactly one positive ID, else undefined.
 * Sqids decodes many non-canonical strings to some number; re-encoding rejects them.
 */
export function decodeRunId(encoded: string): number | undefined {
  const numbers = sqids.decode(encoded);
  if (numbers.length !== 1) return undefined;
  const runId = numbers[0]!;
  if (runId < 1 || !Number.isSafeInteger(runId)) return undefined;
  return sqids.encode([runId]) === encoded ? runId : undefined;
}

/**
 * The display-ID prefix of a project, fixed when the project is created (docs/semantics.md, Identifiers):
 * pieces are split on `-`, `_`, `.` and any whitespace; one piece → its first 3 characters; several → their initials, where two initials become the
 * first initial plus the first 2 characters of the last piece; at most 4; upper-case; none → RUN.
 * `training` → TRA, `my-ml-project` → MMP, `my-project` → MPR, `resnet-50` → R50.
 */
export function displayPrefix(projectName: string): string {
  // Every whitespace separates (tab, NBSP, the ideographic space of CJK names), as parseDisplayId
  // refuses all of it: a prefix that kept one made display IDs nothing could look up.
  const pieces = projectName.split(/[-_.\s]+/u).filter((piece) => piece !== "");
  if (pieces.length === 0) return "RUN";
  if (pieces.length === 1) return [...pieces[0]!].slice(0, 3).join("").toUpperCase();
  let initials = pieces.map((piece) => [...piece][0]!).join("");
  if (initials.length < 3) {
    const last = pieces[pieces.length - 1]!;
    initials = initials.slice(0, -1) + [...last].slice(0, 4 - initials.length).join("");
  }
  return [...initials].slice(0, 4).join("").toUpperCase();
}

export function formatDisplayId(prefix: string, number: number): string {
  return `${prefix}-${number}`;
}

/**
 * Splits `<PREFIX>-<NUMBER>`; the prefix is compared upper-case, as it was created. A prefix never
 * holds the separators displayPrefix splits on, so `MMP--1` is malformed (400), not an unknown run.
 * Its length is not checked: upper-casing may lengthen it (`ß` → `SS`).
 */
export function parseDisplayId(displayId: string): { prefix: string; number: number } | undefined {
  const match = /^([^-_.\s]+)-(\d{1,15})$/u.exec(displayId.trim());
  if (!match) return undefined;
  const number = Number(match[2]);
  if (number < 1) return undefined;
  return { prefix: match[1]!.toUpperCase(), number };
}
