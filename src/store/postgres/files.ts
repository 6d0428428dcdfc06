import { FILE_COLUMNS, toFile, type FileRow } from "../rows.js";
import type { FileQuery, StoredFile } from "../store.js";
import { row, rows, run, type Sql } from "./db.js";

/** A file by ID whatever its organization: only signed URLs, whose signature names the ID, use it. */
export async function getFile(sql: Sql, fileId: number): Promise<StoredFile | undefined> {
  const found = await row<FileRow>(
    sql,
    `SELECT ${FILE_COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id WHERE f.id = $1 AND r.deleted_at IS NULL`,
    [fileId],
  );
  return found && toFile(found);
}

export async function markFileUploaded(sql: Sql, fileId: number, size: number, now: number): Promise<void> {
  await run(sql, "UPDATE files SET file_size = $1, uploaded_at = $2 WHERE id = $3", [size, now, fileId]);
}

/** Uploaded (or, with `pending`, not yet uploaded) files of the run, by step, then sample index, then name. */
export async function listFiles(sql: Sql, orgId: string, runId: number, query: FileQuery): Promise<StoredFile[]> {
  const found = await rows<FileRow>(
    sql,
    `SELECT ${FILE_COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id
     WHERE r.org_id = $1 AND f.run_id = $2 AND (f.uploaded_at IS NULL) = $3 AND ($4::text IS NULL OR f.log_name = $4)
     ORDER BY f.step, f.sample_index NULLS FIRST, f.file_name, f.log_name`,
    [orgId, runId, query.pending === true, query.logName ?? null],
  );
  const files = found.map(toFile);
  return query.logGroup === undefined ? files : files.filter((file) => file.logGroup === query.logGroup);
}
