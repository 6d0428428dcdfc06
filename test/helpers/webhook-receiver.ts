import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got: its headers and raw body. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers a request: a status (with headers), or never ("hang"). */
export type Answer = { status: number; headers?: Record<string, string> } | "hang";

/**
 * A real HTTP server standing for an alert destination (a webhook receiver or Slack), on
 * 127.0.0.1. `answer` decides each response (200 by default); every request is recorded.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  answer: (request: Received, index: number) => Answer = () => ({ status: 200 });
  private readonly hanging = new Set<import("node:http").ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(port = 0): Promise<WebhookReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    const receiver = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    server.on("request", (request, response) => {
      let body = "";
      request.setEncoding("utf8");
      request.on("data", (chunk: string) => (body += chunk));
      request.on("end", () => {
        const received = { path: request.url ?? "", headers: request.headers, body, at: Date.now() };
        receiver.received.push(received);
        const answer = receiver.answer(received, receiver.received.length - 1);
        if (answer === "hang") {
          receiver.hanging.add(response);
          return;
        }
        response.writeHead(answer.status, answer.headers).end(answer.status >= 400 ? "receiver says no" : "ok");
      });
    });
    return receiver;
  }

  /** How many requests arrived (to `path`, when given). */
  count(path?: string): number {
    return this.received.filter((request) => path === undefined || request.path === path).length;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Waits until `count` requests (to `path`, when given) arrived, or fails after `timeoutMs`; answers those. */
  async waitFor(count: number, timeoutMs = 15_000, path?: string): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    const matching = () => this.received.filter((request) => path === undefined || request.path === path);
    while (matching().length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${matching().length} requests, expected ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return matching();
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
