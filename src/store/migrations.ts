import { readdirSync } from "node:fs";
import { StoreOpenError } from "./store.js";

/**
 * Both backends number their migrations alike: one number is one schema step on either, and a
 * number only one of them needs is left out by the other (docs/decisions.md, "One schema"). The
 * files of a directory, `NNNN_name.sql`, ascending.
 */
export function migrationFiles(dir: string): { version: number; file: string }[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_.*\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), file }));
}

/** A database migrated by a newer Stepwise is refused: this binary does not know its schema. */
export function checkSchemaVersion(applied: Iterable<number>, files: { version: number }[]): void {
  const known = files.length === 0 ? 0 : files[files.length - 1]!.version;
  const newest = Math.max(0, ...applied);
  if (newest > known) {
    throw new StoreOpenError(
      `the database has schema version ${newest}, newer than this Stepwise knows (${known}): upgrade Stepwise before starting it on this database`,
    );
  }
}
