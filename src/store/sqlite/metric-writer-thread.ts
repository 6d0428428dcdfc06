import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { DomainError, type ErrorCode } from "../../domain/errors.js";
import type { MetricOutcome, MetricWrite } from "./metric-groups.js";

/** What the writer thread is started with (metric-writer.ts). */
export interface WriterSettings {
  file: string;
  busyTimeoutMs: number;
}

export type WriterRequest = { kind: "commit"; id: number; items: MetricWrite[] } | { kind: "close" };

/**
 * An error as it crosses between threads. Structured cloning keeps an Error's message but not its
 * class or `code`, which decide the answer: a DomainError's code its status, a driver's code a 503
 * (store/unavailable.ts) or a conflict (store/conflicts.ts).
 */
export interface ErrorMessage {
  name: string;
  message: string;
  domainCode?: ErrorCode;
  code?: string;
  stack?: string;
}

type OutcomeMessage = { ok: true; value: number | undefined } | { ok: false; error: ErrorMessage };
export type WriterReply = { id: number; outcomes: OutcomeMessage[] } | { id: number; error: ErrorMessage };

export function errorMessage(error: unknown): ErrorMessage {
  if (error instanceof DomainError) return { name: error.name, message: error.message, domainCode: error.code };
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, stack: error.stack, ...(typeof code === "string" ? { code } : {}) };
}

function clonedError(error: unknown): ErrorMessage {
  const { message, code } = (typeof error === "object" && error !== null ? error : {}) as { message?: unknown; code?: unknown };
  return {
    name: "Error",
    message: typeof message === "string" ? message : `the metric writer thread failed${typeof code === "string" ? ` (${code})` : ""}`,
    ...(typeof code === "string" ? { code } : {}),
  };
}

export function errorFrom(message: ErrorMessage): Error {
  if (message.domainCode) return new DomainError(message.domainCode, message.message);
  const error = Object.assign(new Error(message.message), message.code === undefined ? {} : { code: message.code });
  error.name = message.name;
  if (message.stack) error.stack = message.stack;
  return error;
}

/**
 * The thread's module beside this one, compiled (dist/); or, run from source by tsx (tests and
 * benches), the TypeScript module loaded through tsx's loader, which a thread does not inherit.
 */
function startWriter(settings: WriterSettings): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./metric-writer.js", import.meta.url), { workerData: settings });
  const [tsx, entry] = [import.meta.resolve("tsx/esm/api"), new URL("./metric-writer.ts", import.meta.url).href];
  const load = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(load, { eval: true, workerData: settings });
}

/**
 * An item with its points as float64 columns over one buffer, moved to the thread rather than
 * copied: cloning 30,000 numbers of arrays cost the thread more than turning them into columns
 * here (docs/decisions.md).
 */
function packedColumns(item: MetricWrite): { item: MetricWrite; buffer: ArrayBuffer } {
  let points = 0;
  for (const one of item.series) points += one.steps.length;
  const all = new Float64Array(3 * points);
  let at = 0;
  const column = (values: ArrayLike<number>) => {
    const view = all.subarray(at, at + values.length);
    view.set(values);
    at += values.length;
    return view;
  };
  const series = item.series.map((one) => ({ ...one, steps: column(one.steps), values: column(one.values), times: column(one.times) }));
  return { item: { ...item, series }, buffer: all.buffer };
}

export class UnsendableGroup extends Error {
  constructor(readonly reason: unknown) {
    super(`a group of metric writes could not be sent to the writer thread: ${String(reason)}`);
  }
}

interface Waiting {
  resolve(outcomes: MetricOutcome[]): void;
  reject(error: unknown): void;
}

/**
 * The SQLite store's metric writer thread (docs/decisions.md, "A writer thread for metric
 * writes"): commits groups of metric writes on its own connection, so that the main thread's event
 * loop reads, decodes and validates the next requests while a group is written and fsynced. The
 * thread starts with the first group sent to it and is started again after it died (a group in
 * flight then fails, stored or not; a client's retry of a metric batch is harmless). It does not
 * keep the process alive while idle.
 */
export class MetricWriterThread {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private lastId = 0;

  constructor(private readonly settings: WriterSettings) {}

  /**
   * Sends the group to the thread; its outcomes once the thread committed it. Throws
   * UnsendableGroup, having sent nothing, when the group cannot be copied to the thread (a value
   * no request can carry: a Symbol for a name); its caller then writes it on its own connection.
   */
  commit(items: MetricWrite[]): Promise<MetricOutcome[]> {
    const worker = (this.worker ??= this.start());
    const id = ++this.lastId;
    const packed = items.map(packedColumns);
    try {
      worker.postMessage(
        { kind: "commit", id, items: packed.map((one) => one.item) } satisfies WriterRequest,
        packed.map((one) => one.buffer),
      );
    } catch (error) {
      throw new UnsendableGroup(error);
    }
    worker.ref();
    return new Promise<MetricOutcome[]>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  /** Ends the thread once it has answered every group sent (callers wait for those first). */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = once(worker, "exit");
    worker.ref();
    worker.postMessage({ kind: "close" } satisfies WriterRequest);
    await exited;
  }

  private start(): Worker {
    const worker = startWriter(this.settings);
    worker.on("message", (reply: WriterReply) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (!waiting) return;
      if ("error" in reply) waiting.reject(errorFrom(reply.error));
      else waiting.resolve(reply.outcomes.map((outcome) => (outcome.ok ? outcome : { ok: false, error: errorFrom(outcome.error) })));
    });
    // An error thrown in the thread arrives cloned: a driver's error as a plain object, its message and code kept.
    worker.on("error", (error: unknown) => this.failAll(worker, error instanceof Error ? error : errorFrom(clonedError(error))));
    worker.on("exit", (code) => this.failAll(worker, new Error(`the metric writer thread stopped (exit code ${code})`)));
    return worker;
  }

  private failAll(worker: Worker, error: unknown): void {
    // A dead thread reports twice ("error", then "exit"): the second finds it replaced already.
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
