import { logTypeOfFile } from "../../domain/files.js";
import { FILE_COLUMNS, toFile, type FileRow } from "../rows.js";
import type { FileQuery, NewFile, StoredFile } from "../store.js";
import { row, rows, run, type Sql } from "./db.js";
import { insertLogNames, touchHeartbeat } from "./run-attributes.js";

/**
 * Must run inside a transaction. Registration is idempotent on (run, logName, fileName): the
 * upsert on that constraint keeps the ID whoever registers the name at the same time. One
 * statement per file, in the order given, so a name sent twice in one batch answers one ID twice.
 */
export async function registerFiles(
  sql: Sql,
  orgId: string,
  runId: number,
  files: NewFile[],
  now: number,
): Promise<StoredFile[] | undefined> {
  const owner = await row<{ project_id: number }>(sql, "SELECT project_id FROM runs WHERE id = $1 AND org_id = $2", [runId, orgId]);
  if (!owner) return undefined;
  await insertLogNames(
    sql,
    runId,
    files.map((file) => ({ logName: file.logName, logType: logTypeOfFile(file.fileType) })),
    now,
  );
  const stored: StoredFile[] = [];
  for (const file of files) {
    const found = await row<FileRow>(
      sql,
      `INSERT INTO files (run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (run_id, log_name, file_name) DO UPDATE SET file_type = excluded.file_type, file_size = excluded.file_size,
         time = excluded.time, step = excluded.step, sample_index = excluded.sample_index, caption = excluded.caption,
         annotations = excluded.annotations
       RETURNING id, run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, uploaded_at`,
      [
        runId,
        file.logName,
        file.fileName,
        file.fileType,
        file.fileSize,
        file.time,
        file.step,
        file.sampleIndex ?? null,
        file.caption ?? null,
        file.annotations ?? null,
        now,
      ],
    );
    stored.push(toFile({ ...found!, org_id: orgId, project_id: owner.project_id }));
  }
  await touchHeartbeat(sql, runId, now);
  return stored;
}

/** A file by ID whatever its organization: only signed URLs, whose signature names the ID, use it. */
export async function getFile(sql: Sql, fileId: number): Promise<StoredFile | undefined> {
  const found = await row<FileRow>(sql, `SELECT ${FILE_COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id WHERE f.id = $1`, [fileId]);
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
