/**
 * The metric writer thread's entry (metric-writer-thread.ts): its own connection to the database,
 * on which it commits the groups of metric writes the main thread sends, one at a time, while the
 * main thread goes on reading and parsing the next requests.
 */
import { parentPort, workerData } from "node:worker_threads";
import { connectDatabase } from "./db.js";
import { metricGroupCommitter } from "./metric-groups.js";
import { sqliteOperations } from "./operations.js";
import { Statements } from "./statements.js";
import { errorMessage, type WriterReply, type WriterRequest, type WriterSettings } from "./metric-writer-thread.js";

const settings = workerData as WriterSettings;
const db = connectDatabase(settings.file, settings.busyTimeoutMs);
const commit = metricGroupCommitter(db, sqliteOperations(new Statements(db)));
const port = parentPort!;

port.on("message", (request: WriterRequest) => {
  if (request.kind === "close") {
    db.close();
    port.close();
    return;
  }
  let reply: WriterReply;
  try {
    const outcomes = commit(request.items).map((outcome) =>
      outcome.ok ? outcome : { ok: false as const, error: errorMessage(outcome.error) },
    );
    reply = { id: request.id, outcomes };
  } catch (error) {
    reply = { id: request.id, error: errorMessage(error) };
  }
  port.postMessage(reply);
});
