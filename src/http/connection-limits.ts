import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * The least a client must move per body-timeout window while the server waits on it (sending a
 * request body, or reading a response). A client sending a byte every few seconds holds a
 * connection (and a request) for ever under a pure inactivity timeout; a floor this low still lets
 * any real network move a file of any size, however slowly.
 */
export const MIN_PROGRESS_BYTES = 1024;

/** At the cap, a busy connection moving less than this per second may give its place to a new one. */
export const EVICTABLE_BYTES_PER_SECOND = 64 * 1024;
/** A request younger than this is never closed to make room: its rate is not known yet. */
export const EVICTION_GRACE_MS = 1000;

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
 *   of half-open connections cannot lock out new clients; if every connection is busy, it closes
 *   the slowest one the server is waiting on (for body bytes, or to read its answer) that has moved
 *   less than EVICTABLE_BYTES_PER_SECOND since its request began at least EVICTION_GRACE_MS ago:
 *   a thousand uploads that each send the minimum (~110 KB/s in all) held every slot and locked
 *   everyone out. Only when no connection is idle or slow is the new one refused.
 * Idle keep-alive connections close after the keep-alive timeout (Fastify's keepAliveTimeout).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's requestTimeout bounds the total time of a request: it would cut slow but steady uploads.
  server.requestTimeout = 0;

  const connections = new Map<Socket, Connection>(); // in connection order: the first is the oldest
  server.on("connection", (socket: Socket) => {
    if (connections.size >= limits.maxConnections) {
      const victim = oldestIdle(connections) ?? slowestWaitedOn(connections, performance.now());
      if (!victim) {
        socket.destroy();
        return;
      }
      victim.destroy();
      connections.delete(victim);
    }
    connections.set(socket, { inFlight: 0, current: undefined });
    socket.once("close", () => connections.delete(socket));
  });

  server.on("request", (request: IncomingMessage, response) => {
    const socket = request.socket;
    const connection = connections.get(socket);
    if (connection === undefined) return; // evicted already
    connection.inFlight++;
    connection.current = { request, startedAt: performance.now(), movedBefore: moved(socket) };
    response.once("close", () => {
      connection.inFlight--;
      if (connection.current?.request === request) connection.current = undefined;
    });
    watchProgress(request, response, limits.bodyTimeoutMs);
  });
}

interface Connection {
  inFlight: number;
  /** The request the connection carries now: when it began, and the bytes moved before it. */
  current: { request: IncomingMessage; startedAt: number; movedBefore: number } | undefined;
}

/** Bytes the client has moved on a socket: received, and sent that it has read. */
function moved(socket: Socket): number {
  return socket.bytesRead + socket.bytesWritten - socket.writableLength;
}

/** Whether the server waits on the client: for body bytes it has not sent, or to read what it was sent. */
function waitsOnClient(request: IncomingMessage): boolean {
  return (!request.complete && request.readableLength === 0) || request.socket.writableLength > 0;
}

function oldestIdle(connections: Map<Socket, Connection>): Socket | undefined {
  for (const [socket, connection] of connections) if (connection.inFlight === 0) return socket;
  return undefined;
}

/** The busy connection the server waits on that moves the fewest bytes per second, if it is slow enough to close. */
function slowestWaitedOn(connections: Map<Socket, Connection>, now: number): Socket | undefined {
  let slowest: Socket | undefined;
  let slowestRate = EVICTABLE_BYTES_PER_SECOND;
  for (const [socket, { current }] of connections) {
    if (!current || now - current.startedAt < EVICTION_GRACE_MS || !waitsOnClient(current.request)) continue;
    const rate = (moved(socket) - current.movedBefore) / ((now - current.startedAt) / 1000);
    if (rate < slowestRate) [slowest, slowestRate] = [socket, rate];
  }
  return slowest;
}

/**
 * Closes the connection when, in a whole window, the server waited on the client (for body bytes,
 * or for it to read the response) and the client moved less than MIN_PROGRESS_BYTES. Bytes
 * received but not yet consumed mean the server is the slow one (a handler that has not started
 * reading, or a disk that pushes back): such a window does not count against the client.
 */
function watchProgress(request: IncomingMessage, response: ServerResponse, windowMs: number): void {
  const socket = request.socket;
  let movedBefore = moved(socket);
  let answered = false;
  const done = () => socket.destroyed || (answered && request.complete);
  const timer = setInterval(() => {
    if (done()) {
      clearInterval(timer);
      return;
    }
    const now = moved(socket);
    if (waitsOnClient(request) && now - movedBefore < MIN_PROGRESS_BYTES) {
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
