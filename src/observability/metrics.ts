import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { UnavailableCause } from "../store/unavailable.js";
import type { PoolUse } from "../store/store.js";

/** Which protocol's ingest stored the points. */
export type IngestProtocol = "stepwise" | "mlflow";

/** What became of one attempt to deliver an alert to its receiver. */
export type AlertDeliveryOutcome = "delivered" | "retry" | "failed";

/** Why a store call failed: one of the passing states of store/unavailable.ts, or "other" (a bug, a constraint the code did not expect). */
export type StoreErrorCause = UnavailableCause | "other";

// Seconds: most API requests take a few milliseconds; ingest of large bodies and big reads take seconds.
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// Points in one ingest request: one point per call (MLflow's log-metric) up to a whole epoch's batch.
const BATCH_BUCKETS = [1, 10, 100, 1000, 10_000, 100_000];

/**
 * The server's own metrics, on a registry of its own (one per running server: tests start several
 * in one process, and prom-client's global registry would mix them). Served as Prometheus text by
 * GET /metrics (src/http/metrics.ts). Labels only ever take values from closed sets (route
 * templates, status codes, the unions above): a label taken from a URL or a body would let any
 * client grow the registry without bound.
 */
export class ServerMetrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its response's end, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });

  private readonly pointsIngested = new Counter({
    name: "stepwise_points_ingested_total",
    help: "Metric points stored (acknowledged), by protocol.",
    labelNames: ["protocol"] as const,
    registers: [this.registry],
  });

  private readonly ingestBatchSize = new Histogram({
    name: "stepwise_ingest_batch_points",
    help: "Metric points per ingest request, by protocol.",
    labelNames: ["protocol"] as const,
    buckets: BATCH_BUCKETS,
    registers: [this.registry],
  });

  readonly storeErrors = new Counter({
    name: "stepwise_store_errors_total",
    help: "Store calls that failed, by cause (busy, full, down, slow, no_connection, other).",
    labelNames: ["cause"] as const,
    registers: [this.registry],
  });

  readonly unavailable = new Counter({
    name: "stepwise_unavailable_total",
    help: "Requests answered 503, by cause (the store's state, or the server's large-body budget).",
    labelNames: ["cause"] as const,
    registers: [this.registry],
  });

  readonly connectionsAccepted = new Counter({
    name: "stepwise_connections_accepted_total",
    help: "TCP connections the HTTP server accepted.",
    registers: [this.registry],
  });

  private readonly alertDeliveries = new Counter({
    name: "stepwise_alert_deliveries_total",
    help: "Attempts to deliver an alert, by outcome (delivered, retry, failed).",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  // Children of the fixed labels, made once: the ingest path only adds to them.
  private readonly pointsByProtocol = new Map<IngestProtocol, Counter.Internal>();
  private readonly batchesByProtocol = new Map<IngestProtocol, Histogram.Internal<"protocol">>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const protocol of ["stepwise", "mlflow"] as const) {
      // At zero from the start: a series that appears only with its first point hides that point from rate().
      this.pointsByProtocol.set(protocol, this.pointsIngested.labels(protocol));
      this.pointsIngested.labels(protocol).inc(0);
      this.batchesByProtocol.set(protocol, this.ingestBatchSize.labels(protocol));
    }
    for (const outcome of ["delivered", "retry", "failed"] as const) this.alertDeliveries.labels(outcome).inc(0);
  }

  /** One ingest request stored `points` metric points. */
  pointsStored(protocol: IngestProtocol, points: number): void {
    this.pointsByProtocol.get(protocol)!.inc(points);
    this.batchesByProtocol.get(protocol)!.observe(points);
  }

  /** One attempt to deliver an alert ended so (the alert delivery worker calls this). */
  alertDelivery(outcome: AlertDeliveryOutcome): void {
    this.alertDeliveries.labels(outcome).inc();
  }

  /** Gauges of the open connections, read from the server when scraped. */
  watchConnections(count: () => Promise<number>): void {
    new Gauge({
      name: "stepwise_open_connections",
      help: "TCP connections open to the HTTP server now.",
      registers: [this.registry],
      async collect() {
        this.set(await count());
      },
    });
  }

  /** Gauges of the database pool (PostgreSQL), read from it when scraped. */
  watchPool(use: () => PoolUse): void {
    const gauge = (name: string, help: string, read: (pool: PoolUse) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(use()));
        },
      });
    gauge("stepwise_db_pool_connections", "Connections the database pool holds (idle and in use).", (pool) => pool.total);
    gauge("stepwise_db_pool_idle_connections", "Connections of the database pool not in use.", (pool) => pool.idle);
    gauge("stepwise_db_pool_waiting_requests", "Store calls waiting for a connection of the pool.", (pool) => pool.waiting);
  }
}
