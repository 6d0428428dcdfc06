import { logTypeOfFile } from "../../domain/files.js";
import { logGroupOf } from "../../domain/log-names.js";
import type { FileQuery, NewFile, StoredFile } from "../store.js";
import type { Statements } from "./db.js";
import { runExists, touchHeartbeat } from "./run-attributes.js";

interface FileRow {
  id: number;
  run_id: number;
  log_name: string;
  file_name: string;
  file_type: string;
  file_size: number;
  time: number;
  step: number;
  sample_index: number | null;
  caption: string | null;
  annotations: string | null;
  uploaded_at: number | null;
}

const COLUMNS = "f.id, f.run_id, f.log_name, f.file_name, f.file_type, f.file_size, f.time, f.step, f.sample_index, f.caption, f.annotations, f.uploaded_at";

/** Must run inside a write transaction. Registration is idempotent on (run, logName, fileName). */
export function registerFiles(s: Statements, orgId: string, runId: number, files: NewFile[], now: number): StoredFile[] | undefined {
  if (!runExists(s, orgId, runId)) return undefined;
  const upsert = s.get(
    `INSERT INTO files (run_id, log_name, file_name, file_type, file_size, time, step, sample_index, caption, annotations, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id, log_name, file_name) DO UPDATE SET file_type = excluded.file_type, file_size = excluded.file_size,
       time = excluded.time, step = excluded.step, sample_index = excluded.sample_index, caption = excluded.caption,
       annotations = excluded.annotations
     RETURNING *`,
  );
  const addName = s.get("INSERT INTO run_log_names (run_id, log_name, log_type, log_group, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  const stored = files.map((file) => {
    addName.run(runId, file.logName, logTypeOfFile(file.fileType), logGroupOf(file.logName) || null, now);
    const row = upsert.get(runId, file.logName, file.fileName, file.fileType, file.fileSize, file.time, file.step,
      file.sampleIndex ?? null, file.caption ?? null, file.annotations ?? null, now) as FileRow;
    return toFile(row);
  });
  touchHeartbeat(s, runId, now);
  return stored;
}

/** A file by ID whatever its organization: only signed URLs, whose signature names the ID, use it. */
export function getFile(s: Statements, fileId: number): StoredFile | undefined {
  const row = s.get(`SELECT ${COLUMNS} FROM files f WHERE f.id = ?`).get(fileId) as FileRow | undefined;
  return row && toFile(row);
}

export function markFileUploaded(s: Statements, fileId: number, size: number, now: number): void {
  s.get("UPDATE files SET file_size = ?, uploaded_at = ? WHERE id = ?").run(size, now, fileId);
}

/** Uploaded files of the run, by step, then sample index, then name. */
export function listFiles(s: Statements, orgId: string, runId: number, query: FileQuery): StoredFile[] {
  const rows = s
    .get(
      `SELECT ${COLUMNS} FROM files f JOIN runs r ON r.id = f.run_id
       WHERE r.org_id = ? AND f.run_id = ? AND f.uploaded_at IS NOT NULL AND (? IS NULL OR f.log_name = ?)
       ORDER BY f.step, f.sample_index NULLS FIRST, f.file_name, f.log_name`,
    )
    .all(orgId, runId, query.logName ?? null, query.logName ?? null) as FileRow[];
  const files = rows.map(toFile);
  return query.logGroup === undefined ? files : files.filter((file) => file.logGroup === query.logGroup);
}

function toFile(row: FileRow): StoredFile {
  return {
    id: row.id,
    runId: row.run_id,
    logName: row.log_name,
    logGroup: logGroupOf(row.log_name),
    fileName: row.file_name,
    fileType: row.file_type,
    fileSize: row.file_size,
    time: row.time,
    step: row.step,
    sampleIndex: row.sample_index,
    caption: row.caption,
    annotations: row.annotations,
    uploadedAt: row.uploaded_at,
  };
}
