import { logTypeOfFile } from "../../domain/files.js";
import { logGroupOf } from "../../domain/log-names.js";
import { FILE_COLUMNS, toFile, type FileRow } from "../rows.js";
import type { FileQuery, NewFile, StoredFile } from "../store.js";
import type { Statements } from "./statements.js";
import { touchHeartbeat } from "./run-attributes.js";

/** Must run inside a write transaction. Registration is idempotent on (run, logName, fileName). */
export function registerFiles(s: Statements, orgId: string, runId: number, files: NewFile[], now: number): StoredFile[] | undefined {
  const owner = s.get("SELECT project_id FROM runs WHERE id = ? AND org_id = ?").get(runId, orgId) as { project_id: number } | undefined;
  if (!owner) return undefined;
  const upsert = s.get(
    `INSERT INTO files (run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id, log_name, file_name) DO UPDATE SET file_type = excluded.file_type, file_size = excluded.file_size,
       time = excluded.time, step = excluded.step, sample_index = excluded.sample_index, caption = excluded.caption,
       annotations = excluded.annotations
     RETURNING *`,
  );
  const addName = s.get(
    "INSERT INTO run_log_names (run_id, log_name, log_type, log_group, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
  );
  const stored = files.map((file) => {
    addName.run(runId, file.logName, logTypeOfFile(file.fileType), logGroupOf(file.logName) || null, now);
    const row = upsert.get(
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
    ) as FileRow;
    return toFile({ ...row, org_id: orgId, project_id: owner.project_id });
  });
  touchHeartbeat(s, runId, now);
  return stored;
}

/** A file by ID whatever its organization: only signed URLs, whose signature names the ID, use it. */
export function getFile(s: Statements, fileId: number): StoredFile | undefined {
  const row = s.get(`SELECT ${FILE_COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id WHERE f.id = ?`).get(fileId) as FileRow | undefined;
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
