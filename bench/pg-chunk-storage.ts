/**
 * npm run bench:pg-chunk-storage -- --database-url postgres://…/db — sampled reads of a series
 * whose last chunk appends kept extending, with chunk points out of line in TOAST (the schema's
 * choice) and, for comparison, in their rows (`toast_tuple_target` set to BENCH_TOAST_TARGET bytes,
 * default 8160, on that database): the alternative measured for the ingest pipeline issue
 * (docs/decisions.md, "Points stay in TOAST even for small chunks"). Each case writes one metric
 * of BENCH_POINTS points (default 1,000,000) in appends of BENCH_APPEND points (default 100: chunks
 * of 200 points, 6.4 KB) through the Store into a fresh database, vacuums it, then times 40
 * sampled reads (1,000 points) of the whole range and of a 10% window. The database server
 * defaults to postgres://postgres@127.0.0.1:5432/postgres.
 */
import pg from "pg";
import { createOrganizationWithKey } from "../src/services/accounts.js";
import { PostgresStore } from "../src/store/postgres/index.js";
import { DATABASE_SERVER_URL, freshDatabase } from "./lib/database.js";
import { percentile, printFigures, type Figure } from "./lib/report.js";

const POINTS = Number(process.env.BENCH_POINTS ?? 1_000_000);
const APPEND = Number(process.env.BENCH_APPEND ?? 100);
const READS = 40;
const TOAST_TARGET = Number(process.env.BENCH_TOAST_TARGET ?? 8160);

async function measure(inline: boolean): Promise<Figure[]> {
  const database = await freshDatabase(DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432/postgres", "chunk_storage");
  const store = await PostgresStore.open(database.url);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    if (inline) await client.query(`ALTER TABLE metric_chunks SET (toast_tuple_target = ${TOAST_TARGET})`);
    const { organization } = await createOrganizationWithKey(store, "bench", { now: () => Date.now() });
    const actor = { userId: null, apiKeyId: null };
    const { run } = await store.createRun(organization.id, { projectName: "bench", name: "r", tags: [], now: Date.now() }, actor);
    for (let from = 0; from < POINTS; from += APPEND) {
      const steps = Array.from({ length: APPEND }, (_, i) => from + i);
      const series = [{ logName: "loss", steps, values: steps.map(Math.sin), times: steps.map((step) => 1.7e12 + step) }];
      await store.appendMetricPoints(organization.id, run.id, series, Date.now());
    }
    await client.query("VACUUM ANALYZE metric_chunks");
    const size = (
      await client.query<{ heap: string; total: string }>(
        "SELECT pg_relation_size('metric_chunks') AS heap, pg_total_relation_size('metric_chunks') AS total",
      )
    ).rows[0]!;
    const label = inline ? "in the row" : "in TOAST";
    const figures: Figure[] = [
      { name: `${label}: heap`, value: Number(size.heap) / 1e6, unit: "MB" },
      { name: `${label}: heap, TOAST, indexes`, value: Number(size.total) / 1e6, unit: "MB" },
    ];
    for (const [window, from, to] of [
      ["whole range", 0, POINTS],
      ["10% window", 0.4 * POINTS, 0.5 * POINTS - 1],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < READS; i++) {
        const started = performance.now();
        await store.sampleMetricPoints(organization.id, run.id, "loss", from, to, 1000);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      figures.push(
        { name: `${label}: ${window} p50`, value: percentile(times, 50), unit: "ms" },
        { name: `${label}: ${window} p99`, value: percentile(times, 99), unit: "ms" },
      );
    }
    return figures;
  } finally {
    await client.end();
    await store.close();
    await database.drop();
  }
}

console.log(`Sampled reads of a ${POINTS.toLocaleString("en-US")}-point series written in ${APPEND}-point appends, PostgreSQL`);
printFigures("Results", [...(await measure(false)), ...(await measure(true))]);
