import type { FastifyReply, FastifyRequest } from "fastify";
import { sendUnavailable } from "./errors.js";

/** Ingest bodies above this are large: they count against a process's budget; smaller ones are always read. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/**
 * How many bytes of large ingest bodies one process reads, decodes and writes at once. A body at the
 * 64 MiB limit costs some 250 MB while it is decoded; twelve at once reached 3 GB and held every
 * other request for seconds. Past the budget a large body is answered 503 with `Retry-After` and
 * dropped unread, and the client sends it again (docs/api.md, "Large bodies").
 */
export class LargeBodyBudget {
  private inUse = 0;

  constructor(readonly capacity: number) {}

  /** Takes `bytes` when they fit (or when nothing else is in use, so any one body can pass). */
  tryTake(bytes: number): boolean {
    if (this.inUse > 0 && this.inUse + bytes > this.capacity) return false;
    this.inUse += bytes;
    return true;
  }

  give(bytes: number): void {
    this.inUse -= bytes;
  }
}

/**
 * An onRequest hook: a large body (by its Content-Length; a body without one counts as `maxBytes`)
 * takes its bytes from the budget until its response ends or its connection closes, or is refused.
 */
export function admitLargeBodies(budget: LargeBodyBudget, maxBytes: number) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const declared = Number(request.headers["content-length"]);
    const bytes = request.headers["content-length"] !== undefined && Number.isSafeInteger(declared) ? declared : maxBytes;
    if (bytes <= LARGE_BODY_BYTES) return;
    if (!budget.tryTake(bytes)) {
      // The body is read and dropped as it arrives (no memory kept): a connection closed under a
      // client still sending makes it see a reset instead of this answer, and retry blind.
      request.raw.resume();
      return sendUnavailable(reply, {
        cause: "large_bodies",
        retryAfterSeconds: 1,
        message: `server busy: ${Math.round(budget.capacity / 1024 / 1024)} MiB of large ingest bodies are being written; retry shortly`,
      });
    }
    reply.raw.once("close", () => budget.give(bytes));
  };
}
