import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * The least a client must move per body-timeout window while the server waits on it (sending a
 * request body, or reading a response). A client sending a byte every few seconds holds a
 * connection (and a request) for ever under a pure inactivity timeout; a floor this low still lets
 * any real network move a file of any size, however slowly.
 */
export const MIN_PROGRESS_BYTES = 1024;

export interface ConnectionLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxConnections: number;
}

/**
 * How long Node waits between its checks of the headers timeout (its default, 30 s, would let a
 * half-sent request head live for 30 s past the timeout). Passed to `http.createServer`.
 */
export function connectionsCheckingInterval(limits: ConnectionLimits): number {
  return Math.min(1000, limits.headersTimeoutMs);
}

/**
 * Bounds what slow or idle clients can hold (see "Slow clients" in docs/decisions.md):
 * - the request head must arrive whole within `headersTimeoutMs` (Node's headersTimeout);
 * - a body must progress by MIN_PROGRESS_BYTES per `bodyTimeoutMs` while the server waits
 *   for it, and so must the reading of a response; there is no total request time, so a slow but
 *   steady upload or download of any size completes;
 * - at most `maxConnections` connections: a new one past the cap closes the oldest connection
 *   that has no request in flight (idle keep-alive, or a request head still arriving), so a flood
 *   of half-open connections cannot lock out new clients; if every connection is busy, the new
 *   one is refused.
 * Idle keep-alive connections close after the keep-alive timeout (Fastify's keepAliveTimeout).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's requestTimeout bounds the total time of a request: it would cut slow but steady uploads.
  server.requestTimeout = 0;

  const requestsInFlight = new Map<Socket, number>(); // in connection order: the first is the oldest
  server.on("connection", (socket: Socket) => {
    if (requestsInFlight.size >= limits.maxConnections) {
      const idle = oldestIdle(requestsInFlight);
      if (!idle) {
        socket.destroy();
        return;
      }
      idle.destroy();
      requestsInFlight.delete(idle);
    }
    requestsInFlight.set(socket, 0);
    socket.once("close", () => requestsInFlight.delete(socket));
  });

  server.on("request", (request: IncomingMessage, response) => {
    const socket = request.socket;
    const count = requestsInFlight.get(socket);
    if (count === undefined) return; // evicted already
    requestsInFlight.set(socket, count + 1);
    response.once("close", () => {
      const now = requestsInFlight.get(socket);
      if (now !== undefined) requestsInFlight.set(socket, now - 1);
    });
    watchProgress(request, response, limits.bodyTimeoutMs);
  });
}

function oldestIdle(requestsInFlight: Map<Socket, number>): Socket | undefined {
  for (const [socket, count] of requestsInFlight) if (count === 0) return socket;
  return undefined;
}

/**
 * Closes the connection when, in a whole window, the server waited on the client (for body bytes,
 * or for it to read the response) and the client moved less than MIN_PROGRESS_BYTES. Bytes
 * received but not yet consumed mean the server is the slow one (a handler that has not started
 * reading, or a disk that pushes back): such a window does not count against the client.
 */
function watchProgress(request: IncomingMessage, response: ServerResponse, windowMs: number): void {
  const socket = request.socket;
  const moved = () => socket.bytesRead + socket.bytesWritten - socket.writableLength;
  let movedBefore = moved();
  let answered = false;
  const done = () => socket.destroyed || (answered && request.complete);
  const timer = setInterval(() => {
    if (done()) {
      clearInterval(timer);
      return;
    }
    const waitingForBody = !request.complete && request.readableLength === 0;
    const waitingForReader = socket.writableLength > 0;
    const now = moved();
    if ((waitingForBody || waitingForReader) && now - movedBefore < MIN_PROGRESS_BYTES) {
      clearInterval(timer);
      socket.destroy();
      return;
    }
    movedBefore = now;
  }, windowMs);
  timer.unref();
  // An answer may go out before its body has all arrived (a 401, a 413): the rest must still progress.
  response.once("close", () => {
    answered = true;
    if (done()) clearInterval(timer);
  });
}
