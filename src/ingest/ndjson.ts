import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { invalidInput } from "../domain/errors.js";
import { checkClientJson } from "../domain/json-text.js";

/** 4 MiB per line keeps one bad client line from costing more than a few milliseconds to reject. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * How much of a body is parsed between two turns of the event loop: a 64 MiB body took seconds to
 * parse in one go, and every other request of the process waited that long.
 */
export const YIELD_BYTES = 1024 * 1024;

/**
 * Splits an NDJSON body into parsed objects, 1-based line numbers kept for error messages.
 * Blank lines are ignored and a final line without `\n` counts. Python clients write bare
 * NaN, Infinity and -Infinity; outside strings these become the quoted forms, which metric
 * values accept. Lets the event loop run after each YIELD_BYTES of the body.
 */
export async function parseNdjson(body: string, onLine: (value: Record<string, unknown>, lineNumber: number) => void): Promise<void> {
  let start = 0;
  let lineNumber = 0;
  let nextYield = YIELD_BYTES;
  while (start <= body.length) {
    if (start >= nextYield) {
      await yieldToEventLoop();
      nextYield = start + YIELD_BYTES;
    }
    let end = body.indexOf("\n", start);
    if (end === -1) end = body.length;
    lineNumber++;
    const line = body.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    if (line.length > MAX_LINE_BYTES) throw invalidInput(`line ${lineNumber}: longer than ${MAX_LINE_BYTES} bytes`);
    let value: unknown;
    try {
      value = JSON.parse(line.includes("NaN") || line.includes("Infinity") ? quoteNonFiniteTokens(line) : line);
    } catch {
      throw invalidInput(`line ${lineNumber}: not valid JSON`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw invalidInput(`line ${lineNumber}: must be a JSON object`);
    }
    checkClientJson(line, value, `line ${lineNumber}`);
    onLine(value as Record<string, unknown>, lineNumber);
  }
}

const TOKENS = ["-Infinity", "Infinity", "NaN"];

/** Rewrites bare NaN / Infinity / -Infinity tokens outside JSON strings as quoted strings. */
export function quoteNonFiniteTokens(line: string): string {
  let out = "";
  let copied = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
      continue;
    }
    if (ch === 34) {
      inString = true;
      continue;
    }
    if (ch !== 45 /* - */ && ch !== 73 /* I */ && ch !== 78 /* N */) continue;
    const token = TOKENS.find((t) => line.startsWith(t, i));
    if (!token) continue;
    out += `${line.slice(copied, i)}"${token}"`;
    i += token.length - 1;
    copied = i + 1;
  }
  return copied === 0 ? line : out + line.slice(copied);
}
