/**
 * npm run bench:files — files registered, uploaded and downloaded through the URLs the server hands
 * out, against the data directory and against S3 with presigned URLs (a real S3 server: OpenStack
 * Swift, test/helpers/swift.ts). 1,000 files of 100 KB and 10 files of 100 MB, 8 at a time. With S3
 * the bytes never pass through Stepwise, so its memory must not grow with file size. The first
 * listing after the uploads is timed apart: with S3 it is where the server confirms them (HEADs).
 * Environment: BENCH_SMALL_FILES (default 1000), BENCH_LARGE_FILES (default 10).
 */
import { rmSync } from "node:fs";
import { Readable } from "node:stream";
import { ApiClient } from "../test/helpers/client.js";
import { makeTempDir, spawnServer } from "../test/helpers/start-server.js";
import { startSwiftS3 } from "../test/helpers/swift.js";
import { peakRssMb, printFigures, type Figure } from "./lib/report.js";

const SMALL_FILES = Number(process.env.BENCH_SMALL_FILES ?? 1000);
const LARGE_FILES = Number(process.env.BENCH_LARGE_FILES ?? 10);
const SMALL_BYTES = 100 * 1000;
const LARGE_BYTES = 100 * 1000 * 1000;
const CONCURRENCY = 8;
const CHUNK = Buffer.alloc(1024 * 1024, 7);

type Run = { runId: number; projectName: string };

/** A body of `size` bytes made as it is sent, so the client holds no file either. */
function body(size: number): ReadableStream {
  return Readable.toWeb(
    Readable.from(
      (function* () {
        for (let sent = 0; sent < size; sent += CHUNK.length) yield CHUNK.subarray(0, Math.min(CHUNK.length, size - sent));
      })(),
    ),
  ) as ReadableStream;
}

async function eachLimited<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function register(client: ApiClient, run: Run, prefix: string, count: number, size: number): Promise<string[]> {
  const files = Array.from({ length: count }, (_, i) => ({
    fileName: `${prefix}-${i}.bin`,
    fileSize: size,
    fileType: "bin",
    time: Date.now(),
    step: i,
    logName: prefix,
  }));
  const response = await client.raw("POST", "/files", JSON.stringify({ files }), {
    "content-type": "application/json",
    "x-run-id": String(run.runId),
    "x-project-name": run.projectName,
  });
  if (response.status !== 200) throw new Error(`register: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body[prefix] as Record<string, string>[]).map((entry) => Object.values(entry)[0]!);
}

/** Uploads `count` files of `size` bytes, then downloads them all: the figures of both directions. */
async function roundTrip(client: ApiClient, run: Run, label: string, count: number, size: number, pid: number): Promise<Figure[]> {
  const urls = await register(client, run, label, count, size);
  let started = performance.now();
  await eachLimited(urls, async (url) => {
    const response = await fetch(url, {
      method: "PUT",
      body: body(size),
      headers: { "content-length": String(size) },
      duplex: "half",
    } as RequestInit);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`upload: ${response.status}`);
  });
  const uploadS = (performance.now() - started) / 1000;
  started = performance.now();
  const listing = await client.get("/api/runs/files", { ...run, logName: label });
  const listMs = performance.now() - started;
  const files = listing.body.files as { url: string; fileSize: number }[];
  if (files.length !== count) throw new Error(`listed ${files.length} of ${count} files`);
  started = performance.now();
  let received = 0;
  await eachLimited(files, async (file) => {
    const response = await fetch(file.url);
    for await (const part of response.body!) received += (part as Uint8Array).byteLength;
  });
  const downloadS = (performance.now() - started) / 1000;
  if (received !== count * size) throw new Error(`downloaded ${received} of ${count * size} bytes`);
  const mb = (count * size) / 1e6;
  return [
    { name: `${label} upload`, value: count / uploadS, unit: "files/s" },
    { name: `${label} upload`, value: mb / uploadS, unit: "MB/s" },
    { name: `${label} first listing`, value: listMs, unit: "ms" },
    { name: `${label} download`, value: count / downloadS, unit: "files/s" },
    { name: `${label} download`, value: mb / downloadS, unit: "MB/s" },
    { name: `server peak RSS after ${label}`, value: peakRssMb(pid) ?? NaN, unit: "MB" },
  ];
}

async function bench(name: string, args: string[], env: Record<string, string>, rssBound?: number): Promise<boolean> {
  const dataDir = makeTempDir("stepwise-bench-files-");
  const server = await spawnServer(dataDir, args, env);
  try {
    const key = /sw_[A-Za-z0-9_-]{43}/.exec(server.stdout())![0];
    const client = new ApiClient(server.url, key);
    const run = await client.createRun({ projectName: "bench-files" });
    const idle = peakRssMb(server.child.pid!) ?? NaN;
    const figures: Figure[] = [
      { name: "server RSS at start", value: idle, unit: "MB" },
      ...(await roundTrip(client, run, "100 KB", SMALL_FILES, SMALL_BYTES, server.child.pid!)),
    ];
    const beforeLarge = peakRssMb(server.child.pid!) ?? NaN;
    figures.push(...(await roundTrip(client, run, "100 MB", LARGE_FILES, LARGE_BYTES, server.child.pid!)));
    // What the large files add to the peak: with S3 nothing, since their bytes never reach the server.
    figures.push({
      name: "RSS growth from 100 MB files",
      value: (peakRssMb(server.child.pid!) ?? NaN) - beforeLarge,
      unit: "MB",
      ...(rssBound === undefined ? {} : { target: { bound: "max" as const, value: rssBound } }),
    });
    return printFigures(
      `Files, ${name}: ${SMALL_FILES} × 100 KB and ${LARGE_FILES} × 100 MB, ${CONCURRENCY} at a time, through the URLs the server hands out`,
      figures,
    );
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const swift = await startSwiftS3();
try {
  const local = await bench("data directory", [], {});
  // Presigned URLs: the bytes never reach the server, so large files leave its memory where it was.
  const s3 = await bench("S3 (Swift), presigned URLs", Object.entries(swift.flags("bench")).flat(), swift.env, 5);
  process.exitCode = local && s3 ? 0 : 1;
} finally {
  await swift.stop();
}
