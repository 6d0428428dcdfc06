/**
 * Limits of people's input (docs/semantics.md, "Passwords"), pure so the web UI applies them too
 * (shared-with-ui.ts) and the HTTP schemas can name them.
 */
export const PASSWORD_MIN_LENGTH = 10;
/** Longer passwords are refused: hashing is cheap in their length, but a megabyte body is no password. */
export const PASSWORD_MAX_LENGTH = 1024;
export const EMAIL_MAX_LENGTH = 254;
