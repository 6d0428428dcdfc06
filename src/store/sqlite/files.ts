import { FILE_COLUMNS, toFile, type FileRow } from "../rows.js";
import type { FileQuery, StoredFile } from "../store.js";
import type { Statements } from "./statements.js";

/** A file by ID whatever its organization, of a live run: only signed URLs, whose signature names the ID, use it. */
export function getFile(s: Statements, fileId: number): StoredFile | undefined {
  const row = s
    .get(`SELECT ${FILE_COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id WHERE f.id = ? AND r.deleted_at IS NULL`)
    .get(fileId) as FileRow | undefined;
  return row && toFile(row);
}

export function markFileUploaded(s: Statements, fileId: number, size: number, now: number): void {
  s.get("UPDATE files SET file_size = ?, uploaded_at = ? WHERE id = ?").run(size, now, fileId);
}

/** Uploaded (or, with `pending`, not yet uploaded) files of the run, by step, then sample index, then name. */
export function listFiles(s: Statements, orgId: string, runId: number, query: FileQuery): StoredFile[] {
  const rows = s
    .get(
      `SELECT ${FILE_COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id
       WHERE r.org_id = ? AND f.run_id = ? AND (f.uploaded_at IS NULL) = ? AND (? IS NULL OR f.log_name = ?)
       ORDER BY f.step, f.sample_index NULLS FIRST, f.file_name, f.log_name`,
    )
    .all(orgId, runId, query.pending ? 1 : 0, query.logName ?? null, query.logName ?? null) as FileRow[];
  const files = rows.map(toFile);
  return query.logGroup === undefined ? files : files.filter((file) => file.logGroup === query.logGroup);
}
