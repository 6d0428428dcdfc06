import { invalidInput } from "./errors.js";

/**
 * The one page-token codec (MLflow's `page_token` of experiment search, run search and metric
 * history): a token is base64 of a JSON object naming where the next page starts. Stepwise's own
 * reads page by `offset`/`nextOffset` numbers and need no token.
 */
export function encodePageToken(position: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(position)).toString("base64");
}

/** The fields of a page token; text that is not base64 of JSON (or is `null`) is refused. */
export function decodePageToken(token: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64").toString("utf8"));
  } catch {
    parsed = null;
  }
  if (parsed === null) throw invalidInput("Invalid page token, could not base64-decode");
  // A number or string has no fields: the caller finds none of its own and refuses the token.
  return typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
}

/** A token's position that is a count (an offset, a step): a safe integer ≥ 0, else the token is refused. */
export function pageTokenCount(token: string, field: string): number {
  const value = decodePageToken(token)[field];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw invalidInput("Invalid page token");
  return value;
}
