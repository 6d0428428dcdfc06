import { invalidInput } from "./errors.js";
import { checkJsonDepth } from "./json-depth.js";
import { checkParsedJsonText } from "./text.js";
import type { Json } from "./merge.js";

/**
 * The checks every JSON a client sends passes once parsed, wherever it was parsed (a body, a
 * JSON-text field, an NDJSON line, a JSON query parameter, MLflow's double-encoded bodies):
 * nesting within MAX_JSON_DEPTH, and only storable text (domain/text.ts). `raw` is the text it
 * was parsed from; `field` names it in the 400.
 */
export function checkClientJson(raw: string, value: unknown, field: string): void {
  checkJsonDepth(value, field);
  checkParsedJsonText(raw, value, field);
}

/**
 * Config, system metadata, logger settings and status metadata arrive as JSON text.
 * Absent, null, "" and the text "null" all mean "no value" (undefined).
 */
export function parseJsonText(text: string | null | undefined, field: string): Json | undefined {
  if (text === undefined || text === null || text.trim() === "") return undefined;
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    throw invalidInput(`${field}: must be valid JSON text`);
  }
  checkClientJson(text, value, field);
  return value === null ? undefined : value;
}
