import { invalidInput } from "./errors.js";
import { checkJsonDepth } from "./json-depth.js";
import { checkParsedJsonText } from "./text.js";
import type { Json } from "./merge.js";

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
  checkJsonDepth(value, field);
  checkParsedJsonText(text, value, field);
  return value === null ? undefined : value;
}
