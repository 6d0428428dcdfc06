import { aggregateChunk, aggregateValues, CHUNK_AGGREGATE_COLUMNS, decodeChunk } from "../metric-chunks.js";
import { type Db, Statements } from "./statements.js";
import { SUMMARY_ASSIGNMENTS, summaryValues } from "./metrics.js";
import { summarizePiece } from "./metric-series.js";

/**
 * The data step of migration 0005: recomputes every chunk's aggregates from its stored points
 * (mean, standard deviation, first non-finite steps) and then every metric's summary from its
 * chunks, so rows written before the migration read exactly like rows written after it. Runs
 * inside the migration's transaction, one chunk in memory at a time.
 */
export function backfillMetricAggregates(db: Db): void {
  const s = new Statements(db);
  const update = s.get(`UPDATE metric_chunks SET ${CHUNK_AGGREGATE_COLUMNS.map((column) => `${column} = ?`).join(", ")} WHERE id = ?`);
  const page = s.get(
    "SELECT c.id, c.point_count, p.points FROM metric_chunks c JOIN metric_chunk_points p ON p.chunk_id = c.id WHERE c.id > ? ORDER BY c.id LIMIT 1000",
  );
  for (let after = 0; ; ) {
    const chunks = page.all(after) as { id: number; point_count: number; points: Buffer }[];
    if (chunks.length === 0) break;
    for (const chunk of chunks) {
      update.run(...aggregateValues(aggregateChunk(decodeChunk(chunk.points, chunk.point_count))), chunk.id);
    }
    after = chunks[chunks.length - 1]!.id;
  }
  // The summary columns only: last_time comes with migration 0011.
  const writeSummary = s.get(`UPDATE metrics SET ${SUMMARY_ASSIGNMENTS} WHERE id = ?`);
  for (const { id } of s.get("SELECT id FROM metrics").all() as { id: number }[]) {
    writeSummary.run(...summaryValues(summarizePiece(s, id, 0, Number.MAX_SAFE_INTEGER)), id);
  }
}
