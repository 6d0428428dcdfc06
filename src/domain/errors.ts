/**
 * Typed errors thrown by domain and store code. The HTTP layer maps each code to a status
 * (src/http/errors.ts); messages are shown to clients, so they name the field and never
 * carry internal detail.
 */
export type ErrorCode =
  | "INVALID_INPUT"
  | "RUN_NOT_FOUND"
  | "PROJECT_NOT_FOUND"
  | "NOT_FOUND"
  | "AMBIGUOUS_DISPLAY_ID"
  | "CONFLICT"
  | "MISSING_API_KEY"
  | "INVALID_API_KEY"
  | "EXPIRED_API_KEY"
  | "REVOKED_API_KEY"
  | "INVALID_SESSION"
  | "FORBIDDEN"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "STORE_UNAVAILABLE";

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const invalidInput = (message: string) => new DomainError("INVALID_INPUT", message);
export const runNotFound = (ref: string | number) => new DomainError("RUN_NOT_FOUND", `run '${ref}' not found`);
export const projectNotFound = (name: string) => new DomainError("PROJECT_NOT_FOUND", `project '${name}' not found`);
