import { DomainError, invalidInput } from "./errors.js";

/**
 * Saved views (docs/api.md, "Saved views"): a named state of a project's page (the UI's layout,
 * panels, columns, hidden runs and query), kept on the server so a link opens it anywhere. The
 * server keeps the state as the client's JSON object and never reads into it.
 */

/**
 * The most a view's state may take as JSON text, in UTF-8 bytes. A layout with a hundred panels,
 * their options and a few hundred hidden runs is under 20 KB; 256 KiB leaves room without letting a
 * page's every load carry megabytes.
 */
export const MAX_VIEW_STATE_BYTES = 256 * 1024;

/** How long a view's name may be, in characters. */
export const MAX_VIEW_NAME_LENGTH = 200;

/** A name as stored: trimmed, not empty. Names are unique per project as given, case included. */
export function viewName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "") throw invalidInput("name: must not be empty");
  if (trimmed.length > MAX_VIEW_NAME_LENGTH) throw invalidInput(`name: longer than ${MAX_VIEW_NAME_LENGTH} characters`);
  return trimmed;
}

/**
 * A view's state as the JSON text stored: a JSON object (not an array, not a scalar) of at most
 * MAX_VIEW_STATE_BYTES. Throws INVALID_INPUT or PAYLOAD_TOO_LARGE.
 */
export function viewStateText(state: unknown): string {
  if (typeof state !== "object" || state === null || Array.isArray(state)) throw invalidInput("state: must be a JSON object");
  const text = JSON.stringify(state);
  const bytes = new TextEncoder().encode(text).length; // at most the body bound (320 KiB): a copy is cheap
  if (bytes > MAX_VIEW_STATE_BYTES) {
    throw new DomainError("PAYLOAD_TOO_LARGE", `state: ${bytes} bytes of JSON, more than the ${MAX_VIEW_STATE_BYTES} a view may keep`);
  }
  return text;
}
