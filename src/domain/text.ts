import { invalidInput } from "./errors.js";

/**
 * Text every store keeps as sent (docs/api.md, "Limits on every request"): no U+0000 (NUL), which
 * PostgreSQL's text and jsonb cannot hold, and no unpaired UTF-16 surrogate, which is not Unicode
 * text at all (each store replaced one differently). Both are refused at the edge with a 400, on
 * both stores alike, so no route can store what another store, `copy` or a jsonb cast would choke on.
 * Matched per code unit without the `u` flag, so an unpaired surrogate is seen, in linear time.
 */
const NOT_STORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const ILL_FORMED_TEXT = "text must not contain U+0000 (NUL) or an unpaired surrogate";

export function isStorableText(text: string): boolean {
  return !NOT_STORABLE.test(text);
}

/** Throws INVALID_INPUT naming `field` when `text` is not storable. */
export function checkStorableText(text: string, field: string): void {
  if (!isStorableText(text)) throw invalidInput(`${field}: ${ILL_FORMED_TEXT}`);
}

/**
 * Checks every string and key of a value parsed from JSON text `raw`. JSON can carry NUL or an
 * unpaired surrogate only as a `\u` escape (a raw NUL is invalid JSON, and decoding UTF-8 never
 * makes a surrogate), so text without `\u` is not walked: the common body costs one scan.
 */
export function checkParsedJsonText(raw: string, value: unknown, field: string): void {
  if (!raw.includes("\\u")) return;
  // The error names where the text is (`body.files[1].fileName`), so a client can find it.
  const pending: [unknown, string][] = [[value, field]];
  while (pending.length > 0) {
    const [current, path] = pending.pop()!;
    if (typeof current === "string") checkStorableText(current, path);
    else if (Array.isArray(current)) for (let i = 0; i < current.length; i++) pending.push([current[i], `${path}[${i}]`]);
    else if (typeof current === "object" && current !== null)
      for (const key in current) {
        checkStorableText(key, `${path} (a key)`);
        pending.push([(current as Record<string, unknown>)[key], `${path}.${key}`]);
      }
  }
}
