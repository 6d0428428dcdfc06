/**
 * node --import tsx bench/pg-chunk-writes.ts — the PostgreSQL ceiling for metric chunk rows without
 * HTTP: rows of 512 points × 4 float64 in bytea (encoded by src/store/metric-chunks.ts) plus the
 * aggregate columns, written through `pg` as multi-row INSERT and as one INSERT of arrays (unnest),
 * into a fresh table of a throw-away database, from BENCH_CONNECTIONS connections (default 4) at once.
 * The driver comparison it was written for (pg against postgres, with COPY) is in docs/decisions.md,
 * "PostgreSQL driver". bench/ingest.ts calls chunkRowCeiling for the rows its own batches write.
 * Environment: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), BENCH_POINTS
 * (default 4,000,000), BENCH_POINTS_PER_CHUNK (default 512).
 */
import { pathToFileURL } from "node:url";
import pg from "pg";
import {
  aggregateChunk,
  aggregateValues,
  CHUNK_AGGREGATE_COLUMNS,
  encodeChunk,
  MAX_CHUNK_POINTS,
  type PointColumns,
} from "../src/store/metric-chunks.js";
import { cpuSeconds } from "./lib/report.js";

const ADMIN_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const POINTS = Number(process.env.BENCH_POINTS ?? 4_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const POINTS_PER_CHUNK = Number(process.env.BENCH_POINTS_PER_CHUNK ?? MAX_CHUNK_POINTS);
const CHUNKS_PER_STATEMENT = 16;

const COLUMNS = ["metric_id", "start_step", "end_step", "point_count", ...CHUNK_AGGREGATE_COLUMNS, "points"];
const TYPES = [
  "bigint",
  "bigint",
  "bigint",
  "int",
  "int",
  "float8",
  "float8",
  "float8",
  "bigint",
  "float8",
  "float8",
  "bigint",
  "float8",
  "float8",
  "bigint",
  "bigint",
  "bigint",
  "bigint",
  "bytea",
];
const TABLE = `CREATE TABLE bench_chunks (id bigserial PRIMARY KEY, ${COLUMNS.map((c, i) => `${c} ${TYPES[i]}`).join(", ")});
  ALTER TABLE bench_chunks ALTER COLUMN points SET STORAGE EXTERNAL`;

type Row = (number | null | Buffer)[];

/** Chunk rows of one metric, as the store would write them. */
function makeRows(metricId: number, chunks: number, pointsPerChunk: number): Row[] {
  const rows: Row[] = [];
  for (let c = 0; c < chunks; c++) {
    const columns: PointColumns = {
      steps: new Float64Array(pointsPerChunk),
      values: new Float64Array(pointsPerChunk),
      times: new Float64Array(pointsPerChunk),
      writtenAt: new Float64Array(pointsPerChunk).fill(Date.now()),
    };
    for (let i = 0; i < pointsPerChunk; i++) {
      const step = c * pointsPerChunk + i;
      columns.steps[i] = step;
      columns.values[i] = Math.sin(step / 100) + Math.random();
      columns.times[i] = 1.7e12 + step;
    }
    rows.push([
      metricId,
      columns.steps[0]!,
      columns.steps[pointsPerChunk - 1]!,
      pointsPerChunk,
      ...aggregateValues(aggregateChunk(columns)),
      encodeChunk(columns),
    ]);
  }
  return rows;
}

function multiRowSql(n: number): string {
  const tuples = [];
  for (let r = 0; r < n; r++) tuples.push(`(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(", ")})`);
  return `INSERT INTO bench_chunks (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`;
}

const UNNEST_SQL = `INSERT INTO bench_chunks (${COLUMNS.join(", ")})
  SELECT * FROM unnest(${TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(", ")})`;

function transpose(rows: Row[]): unknown[][] {
  return COLUMNS.map((_, c) => rows.map((row) => row[c]));
}

/** The statements' work, split over the connections; returns points per second. */
async function timed(
  batches: Row[][],
  connections: number,
  write: (batch: Row[], connection: number) => Promise<void>,
): Promise<number | string> {
  try {
    return await run(batches, connections, write);
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

async function run(batches: Row[][], connections: number, write: (batch: Row[], connection: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async (_, connection) => {
      while (next < batches.length) await write(batches[next++]!, connection);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const points = batches.reduce((sum, batch) => sum + batch.reduce((n, row) => n + (row[3] as number), 0), 0);
  return points / seconds;
}

/** A throw-away database on the server of `adminUrl`, dropped by `drop`. */
async function throwAwayDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const database = `stepwise_bench_chunks_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    url: url.href,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** What the ceiling measured: its rate, and the CPU time per million points of the database's backends and of the writing process. */
export interface CeilingFigures {
  pointsPerSecond: number;
  cpuPerMillion: { database: number; writer: number };
}

/**
 * Points per second of `points` points in chunk rows of `pointsPerChunk` points, written in
 * multi-row INSERTs of `rowsPerStatement` rows from `connections` connections, into a fresh
 * table of a throw-away database on the server of `adminUrl`: what PostgreSQL takes of these rows
 * with nothing else to do. The rows are built before the clock starts; the CPU time counts the
 * timed writes only (the writer's serializing and sending, the backends' inserting).
 */
export async function chunkRowCeiling(options: {
  adminUrl: string;
  points: number;
  pointsPerChunk: number;
  rowsPerStatement: number;
  connections: number;
}): Promise<CeilingFigures> {
  const database = await throwAwayDatabase(options.adminUrl);
  const pool = new pg.Pool({ connectionString: database.url, max: options.connections });
  pool.on("error", () => {}); // an idle connection ended by the DROP … WITH (FORCE) below
  // The pool's backends are the only sessions of the throw-away database.
  const backendCpu = async () => {
    const { rows } = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
    return rows.reduce((sum, { pid }) => sum + (cpuSeconds(pid) ?? 0), 0);
  };
  try {
    await pool.query(TABLE);
    await Promise.all(Array.from({ length: options.connections }, () => pool.query("SELECT 1"))); // open them all before the clock
    const statements = Math.ceil(options.points / options.pointsPerChunk / options.rowsPerStatement);
    const batches = Array.from({ length: statements }, (_, b) => makeRows(b % 100, options.rowsPerStatement, options.pointsPerChunk));
    const text = multiRowSql(options.rowsPerStatement);
    const databaseBefore = await backendCpu();
    const writerBefore = process.cpuUsage();
    const pointsPerSecond = await run(batches, options.connections, (batch) => pool.query(text, batch.flat()).then(() => undefined));
    const writer = process.cpuUsage(writerBefore);
    const databaseCpu = (await backendCpu()) - databaseBefore;
    const millions = (statements * options.rowsPerStatement * options.pointsPerChunk) / 1e6;
    return {
      pointsPerSecond,
      cpuPerMillion: { database: databaseCpu / millions, writer: (writer.user + writer.system) / 1e6 / millions },
    };
  } finally {
    await pool.end();
    await database.drop();
  }
}

async function main() {
  const database = await throwAwayDatabase(ADMIN_URL);
  let pool: pg.Pool | undefined;
  try {
    const batches: Row[][] = [];
    const statements = Math.ceil(POINTS / POINTS_PER_CHUNK / CHUNKS_PER_STATEMENT);
    for (let b = 0; b < statements; b++) batches.push(makeRows(b % 100, CHUNKS_PER_STATEMENT, POINTS_PER_CHUNK));
    const figures = new Map<string, number | string>();

    const opened = new pg.Pool({ connectionString: database.url, max: CONNECTIONS });
    pool = opened;
    const fresh = async () => {
      await opened.query("DROP TABLE IF EXISTS bench_chunks");
      await opened.query(TABLE);
    };
    const multiRow = multiRowSql(CHUNKS_PER_STATEMENT);

    await fresh();
    figures.set(
      "pg, multi-row INSERT",
      await timed(batches, CONNECTIONS, (batch) => opened.query(multiRow, batch.flat()).then(() => undefined)),
    );
    await fresh();
    figures.set(
      "pg, INSERT … unnest(arrays)",
      await timed(batches, CONNECTIONS, (batch) => opened.query(UNNEST_SQL, transpose(batch)).then(() => undefined)),
    );
    const { rows } = await opened.query("SELECT count(*)::int AS n FROM bench_chunks");
    if (rows[0].n !== statements * CHUNKS_PER_STATEMENT) throw new Error(`the last variant wrote ${rows[0].n} rows`);
    console.log(
      `${statements * CHUNKS_PER_STATEMENT * POINTS_PER_CHUNK} points, ${POINTS_PER_CHUNK} per chunk, ${CHUNKS_PER_STATEMENT} chunks per statement, ${CONNECTIONS} connections`,
    );
    for (const [name, rate] of figures)
      console.log(`${name.padEnd(36)} ${typeof rate === "number" ? `${Math.round(rate).toLocaleString("en-US")} points/s` : rate}`);
  } finally {
    await pool?.end();
    await database.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await main();
