import { resolve } from "node:path";
import { parseAllowList } from "./domain/alerts/address-policy.js";

/**
 * The one option table. Each option has a CLI flag, an environment variable and a default;
 * flags win over the environment, the environment over defaults. Parsed once at start-up.
 */
export interface Config {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  /** Absolute URLs in responses start with this; empty means "scheme and Host of the request". */
  readonly publicUrl: string;
  /** A RUNNING run silent for longer than this becomes FAILED; 0 disables the monitor. */
  readonly staleAfterMs: number;
  /** How long deleted runs and projects stay in the trash (restorable) before the purge removes them; 0 purges at the next round. */
  readonly deletedRetentionMs: number;
  readonly logLevel: string;
  /** Keep-alive above the 60 s idle timeout of common client pools, so the server never closes first. */
  readonly keepAliveTimeoutMs: number;
  /** The largest file a signed upload may carry; uploads stream, so this bounds disk, not memory. */
  readonly maxUploadBytes: number;
  /** A request's head (request line and headers) must arrive whole within this. */
  readonly headersTimeoutMs: number;
  /** A body in transit (a request's, or a response the client reads) must move 1 KiB per this long: progress, not total time. */
  readonly bodyTimeoutMs: number;
  /** Open connections at most; past it the oldest connection without a request in flight is closed, else the slowest busy one. */
  readonly maxConnections: number;
  /** On SIGTERM, requests still in flight after this long are cut. */
  readonly shutdownTimeoutMs: number;
  /** SQLite: how long a request waits for another process's lock on the database before a 503. */
  readonly storeBusyTimeoutMs: number;
  /** PostgreSQL: how long a request's statement waits for a lock another transaction holds (lock_timeout) before a 503. */
  readonly storeLockTimeoutMs: number;
  /** PostgreSQL: a request's statement running longer than this is cancelled (statement_timeout) and answers 503; 0: no bound. */
  readonly storeStatementTimeoutMs: number;
  /** Readiness fails when the data directory's file system has less free space than this. */
  readonly minFreeSpaceBytes: number;
  /** Where file bytes live: "" for the data directory, or "s3://<bucket>/<prefix>" (README, "Files on S3"). */
  readonly blobUrl: string;
  /** The S3 endpoint URL; empty for AWS itself. */
  readonly s3Endpoint: string;
  readonly s3Region: string;
  /** Bucket in the path (http://host/bucket/key) instead of the host name: what most self-hosted servers need. */
  readonly s3ForcePathStyle: boolean;
  /** Clients move file bytes with presigned bucket URLs; false: through the server's own signed routes. */
  readonly s3DirectUrls: boolean;
  /** Empty: the embedded SQLite store in dataDir. `postgres://…`: that PostgreSQL database. */
  readonly databaseUrl: string;
  /** GET /metrics is served (Prometheus text); false: that route does not exist. */
  readonly metricsEnabled: boolean;
  /** Non-empty: GET /metrics requires `Authorization: Bearer <this>`. */
  readonly metricsToken: string;
  /** Host names and CIDR ranges alert destinations may reach although they are loopback, private, link-local… (checked here, parsed by domain/alerts/address-policy.ts). */
  readonly alertsAllowHosts: string;
  /** An alert delivery that failed this many attempts is marked failed (retried by hand from then on). */
  readonly alertsMaxAttempts: number;
  /**
   * How long this process keeps a key or session it has read, with its member's role; "auto": 1 s
   * on PostgreSQL (a round trip per request saved), 0 on SQLite (the read costs microseconds).
   */
  readonly authCacheTtl: "auto" | number;
  /** A browser session unused this long ends (sign in again). */
  readonly sessionIdleMs: number;
  /** A browser session ends this long after sign-in, however active. */
  readonly sessionMaxAgeMs: number;
  /** Alert deliveries this process sends at once; 0: this process sends none (others on the store do). */
  readonly alertsConcurrency: number;
}

interface OptionSpec {
  key: keyof Config;
  flag: string;
  env: string;
  default: string;
  doc: string;
  parse: (raw: string) => Config[keyof Config];
  /** How `stepwise config` shows the value, when not as is (a secret inside it is masked). */
  display?: (value: string) => string;
}

export const OPTIONS: readonly OptionSpec[] = [
  {
    key: "dataDir",
    flag: "--data-dir",
    env: "STEPWISE_DATA_DIR",
    default: "./data",
    doc: "Directory of the embedded store (SQLite database, files, signing secret).",
    parse: (v) => resolve(v),
  },
  {
    key: "host",
    flag: "--host",
    env: "STEPWISE_HOST",
    default: "127.0.0.1",
    doc: "Interface to listen on; 0.0.0.0 for all.",
    parse: (v) => v,
  },
  {
    key: "port",
    flag: "--port",
    env: "STEPWISE_PORT",
    default: "8080",
    doc: "TCP port; 0 picks a free one.",
    parse: (v) => parseInteger(v, "port", 0, 65535),
  },
  {
    key: "publicUrl",
    flag: "--public-url",
    env: "STEPWISE_PUBLIC_URL",
    default: "",
    doc: "Base of absolute URLs in responses; empty uses the request's scheme and Host.",
    parse: (v) => v.replace(/\/+$/, ""),
  },
  {
    key: "staleAfterMs",
    flag: "--stale-after",
    env: "STEPWISE_STALE_AFTER",
    default: "15m",
    doc: "Mark RUNNING runs without heartbeat for this long as FAILED (e.g. 900s, 15m, 2h); 0 disables.",
    parse: (v) => parseDuration(v, "stale-after"),
  },
  {
    key: "deletedRetentionMs",
    flag: "--deleted-retention",
    env: "STEPWISE_DELETED_RETENTION",
    default: "30d",
    doc: "Keep deleted runs and projects restorable this long, then purge their rows and files (e.g. 7d, 30d); 0 purges at the next hourly round.",
    parse: (v) => parseDuration(v, "deleted-retention"),
  },
  {
    key: "logLevel",
    flag: "--log-level",
    env: "STEPWISE_LOG_LEVEL",
    default: "info",
    doc: "Request log level: fatal, error, warn, info, debug, trace or silent.",
    parse: (v) => parseEnum(v, "log-level", ["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  },
  {
    key: "keepAliveTimeoutMs",
    flag: "--keep-alive-timeout",
    env: "STEPWISE_KEEP_ALIVE_TIMEOUT",
    default: "72s",
    doc: "How long an idle keep-alive connection stays open.",
    parse: (v) => parseDuration(v, "keep-alive-timeout"),
  },
  {
    key: "maxUploadBytes",
    flag: "--max-upload-size",
    env: "STEPWISE_MAX_UPLOAD_SIZE",
    default: "5GiB",
    doc: "Largest file accepted by a signed upload (bytes, or with KiB, MiB, GiB, KB, MB, GB).",
    parse: (v) => parseSize(v, "max-upload-size"),
  },
  {
    key: "headersTimeoutMs",
    flag: "--headers-timeout",
    env: "STEPWISE_HEADERS_TIMEOUT",
    default: "15s",
    doc: "A request's line and headers must arrive whole within this, else the connection is closed.",
    parse: (v) => parsePositiveDuration(v, "headers-timeout"),
  },
  {
    key: "bodyTimeoutMs",
    flag: "--body-timeout",
    env: "STEPWISE_BODY_TIMEOUT",
    default: "15s",
    doc: "A request body still arriving, or a response being read, must move 1 KiB per this long, else the connection is closed.",
    parse: (v) => parsePositiveDuration(v, "body-timeout"),
  },
  {
    key: "maxConnections",
    flag: "--max-connections",
    env: "STEPWISE_MAX_CONNECTIONS",
    default: "1000",
    doc: "Open connections at most; past it the oldest one without a request in flight is closed, else the slowest busy one under 64 KiB/s.",
    parse: (v) => parseInteger(v, "max-connections", 1, 1_000_000),
  },
  {
    key: "shutdownTimeoutMs",
    flag: "--shutdown-timeout",
    env: "STEPWISE_SHUTDOWN_TIMEOUT",
    default: "30s",
    doc: "On SIGTERM or SIGINT, requests still in flight after this long are cut.",
    parse: (v) => parseDuration(v, "shutdown-timeout"),
  },
  {
    key: "storeBusyTimeoutMs",
    flag: "--store-busy-timeout",
    env: "STEPWISE_STORE_BUSY_TIMEOUT",
    default: "100ms",
    doc: "SQLite: how long a request waits for another process's lock on the database before answering 503.",
    parse: (v) => parseDuration(v, "store-busy-timeout"),
  },
  {
    key: "storeLockTimeoutMs",
    flag: "--store-lock-timeout",
    env: "STEPWISE_STORE_LOCK_TIMEOUT",
    default: "5s",
    doc: "PostgreSQL: how long a request's statement waits for a lock another transaction holds before the request answers 503.",
    parse: (v) => parseDuration(v, "store-lock-timeout"),
  },
  {
    key: "storeStatementTimeoutMs",
    flag: "--store-statement-timeout",
    env: "STEPWISE_STORE_STATEMENT_TIMEOUT",
    default: "30s",
    doc: "PostgreSQL: a request's database statement still running after this long is cancelled and the request answers 503; 0 disables.",
    parse: (v) => parseDuration(v, "store-statement-timeout"),
  },
  {
    key: "minFreeSpaceBytes",
    flag: "--min-free-space",
    env: "STEPWISE_MIN_FREE_SPACE",
    default: "64MiB",
    doc: "Readiness fails when the data directory's disk has less free space than this.",
    parse: (v) => parseSize(v, "min-free-space"),
  },
  {
    key: "blobUrl",
    flag: "--blob-url",
    env: "STEPWISE_BLOB_URL",
    default: "",
    doc: "Where file bytes live: empty for the data directory, or s3://BUCKET/OPTIONAL-PREFIX (credentials from the AWS environment).",
    parse: (v) => {
      if (v !== "") parseBlobUrl(v);
      return v;
    },
  },
  {
    key: "s3Endpoint",
    flag: "--s3-endpoint",
    env: "STEPWISE_S3_ENDPOINT",
    default: "",
    doc: "S3 endpoint URL of a self-hosted or other S3-compatible server; empty for AWS.",
    parse: (v) => {
      if (v !== "" && !/^https?:\/\/[^/?#\s]+\/?$/.test(v))
        throw new ConfigError(`s3-endpoint must be an http(s) URL without a path, got '${v}'`);
      return v.replace(/\/$/, "");
    },
  },
  {
    key: "s3Region",
    flag: "--s3-region",
    env: "STEPWISE_S3_REGION",
    default: "us-east-1",
    doc: "Region of the bucket (self-hosted servers usually accept us-east-1).",
    parse: (v) => {
      if (!/^[a-z0-9-]{1,64}$/.test(v)) throw new ConfigError(`s3-region must be a region name like us-east-1, got '${v}'`);
      return v;
    },
  },
  {
    key: "s3ForcePathStyle",
    flag: "--s3-force-path-style",
    env: "STEPWISE_S3_FORCE_PATH_STYLE",
    default: "false",
    doc: "true: address the bucket in the URL path (most self-hosted S3 servers); false: as a host name (AWS).",
    parse: (v) => parseEnum(v, "s3-force-path-style", ["true", "false"]) === "true",
  },
  {
    key: "s3DirectUrls",
    flag: "--s3-direct-urls",
    env: "STEPWISE_S3_DIRECT_URLS",
    default: "true",
    doc: "true: clients upload and download with presigned bucket URLs; false: bytes stream through the server (for buckets clients cannot reach).",
    parse: (v) => parseEnum(v, "s3-direct-urls", ["true", "false"]) === "true",
  },
  {
    key: "databaseUrl",
    flag: "--database-url",
    env: "STEPWISE_DATABASE_URL",
    default: "",
    doc: "Empty: the embedded SQLite store in --data-dir. postgres://user:pass@host:port/db: that PostgreSQL database.",
    parse: (v) => parseDatabaseUrl(v),
    display: (v) => maskPassword(v),
  },
  {
    key: "authCacheTtl",
    flag: "--auth-cache-ttl",
    env: "STEPWISE_AUTH_CACHE_TTL",
    default: "auto",
    doc: "How long a process keeps a key or session it has checked, with its role (e.g. 0, 500ms, 2s): a revocation, role change or removal made through another process takes effect within this; through this process, at once. auto: 1s on PostgreSQL, 0 on SQLite.",
    parse: (v) => (v === "auto" ? "auto" : parseDuration(v, "auth-cache-ttl")),
  },
  {
    key: "sessionIdleMs",
    flag: "--session-idle",
    env: "STEPWISE_SESSION_IDLE",
    default: "12h",
    doc: "A signed-in browser session unused this long ends (e.g. 30m, 12h); activity is recorded at most once a minute.",
    parse: (v) => parsePositiveDuration(v, "session-idle"),
  },
  {
    key: "sessionMaxAgeMs",
    flag: "--session-max-age",
    env: "STEPWISE_SESSION_MAX_AGE",
    default: "7d",
    doc: "A signed-in browser session ends this long after sign-in, however active (e.g. 1d, 7d).",
    parse: (v) => parsePositiveDuration(v, "session-max-age"),
  },
  {
    key: "metricsEnabled",
    flag: "--metrics",
    env: "STEPWISE_METRICS",
    default: "true",
    doc: "true: serve the server's own metrics at GET /metrics (Prometheus text format); false: no such route.",
    parse: (v) => parseEnum(v, "metrics", ["true", "false"]) === "true",
  },
  {
    key: "metricsToken",
    flag: "--metrics-token",
    env: "STEPWISE_METRICS_TOKEN",
    default: "",
    doc: "Non-empty: GET /metrics requires the header 'Authorization: Bearer <token>' (401 otherwise); empty: open to whoever reaches the port.",
    parse: (v) => {
      if (/\s/.test(v)) throw new ConfigError("metrics-token must not contain spaces");
      return v;
    },
    display: (v) => (v === "" ? v : "***"),
  },
  {
    key: "alertsAllowHosts",
    flag: "--alerts-allow-hosts",
    env: "STEPWISE_ALERTS_ALLOW_HOSTS",
    default: "",
    doc: "Alert destinations may not reach loopback, private, link-local or metadata addresses; this comma-separated list of host names and CIDR ranges (127.0.0.1, 10.0.0.0/8, hooks.internal) is allowed anyway.",
    parse: (v) => {
      try {
        parseAllowList(v);
        return v.trim();
      } catch (error) {
        throw new ConfigError(`alerts-allow-hosts: ${(error as Error).message}`);
      }
    },
  },
  {
    key: "alertsMaxAttempts",
    flag: "--alerts-max-attempts",
    env: "STEPWISE_ALERTS_MAX_ATTEMPTS",
    default: "10",
    doc: "Attempts of an alert delivery (exponential backoff with jitter from 2 s, at most 1 h apart) before it is marked failed.",
    parse: (v) => parseInteger(v, "alerts-max-attempts", 1, 100),
  },
  {
    key: "alertsConcurrency",
    flag: "--alerts-concurrency",
    env: "STEPWISE_ALERTS_CONCURRENCY",
    default: "8",
    doc: "Alert deliveries this process sends at once (a quarter of them to one destination); 0: this process sends none, leaving them to other processes on the store.",
    parse: (v) => parseInteger(v, "alerts-concurrency", 0, 256),
  },
];

/**
 * The bucket and key prefix of an `s3://<bucket>/<prefix>` blob URL. The prefix ends with "/" unless
 * empty, so keys never run into a neighbour's ("runs" must not match "runs-old/").
 */
export function parseBlobUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new ConfigError(`blob-url must be empty or s3://BUCKET/OPTIONAL-PREFIX with a valid bucket name, got '${url}'`);
  const prefix = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix.split("/").some((part) => part === "." || part === "..") || /[\u0000-\u001f\\]|\/\//.test(prefix)) {
    throw new ConfigError(`blob-url prefix must be plain path segments, got '${prefix}'`);
  }
  return { bucket: match[1]!, prefix: prefix === "" ? "" : `${prefix}/` };
}

export class ConfigError extends Error {}

/** Builds the configuration from flags (already split into name → value) and the environment. */
export function loadConfig(flags: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Config {
  const config = Object.fromEntries(
    OPTIONS.map((option) => [option.key, option.parse(flags[option.flag] ?? env[option.env] ?? option.default)]),
  );
  return Object.freeze(config) as unknown as Config;
}

export function parseInteger(raw: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

const DURATION_UNITS = new Map([
  ["ms", 1],
  ["s", 1000],
  ["m", 60_000],
  ["h", 3_600_000],
  ["d", 86_400_000],
]);

/** Parses `<n>ms|s|m|h|d`; a bare number means seconds, and "0" means zero. */
export function parseDuration(raw: string, name: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be a duration like 30s, 15m, 2h or 7d, got '${raw}'`);
  return Number(match[1]) * DURATION_UNITS.get(match[2] ?? "s")!;
}

/** A duration above zero: a timeout of zero would cut every connection at once. */
function parsePositiveDuration(raw: string, name: string): number {
  const ms = parseDuration(raw, name);
  if (ms === 0) throw new ConfigError(`${name} must be above zero, got '${raw}'`);
  return ms;
}

// Maps, like every table looked up with input: a unit spelled "constructor" must not find Object.
const SIZE_UNITS = new Map([
  ["", 1],
  ["b", 1],
  ["kb", 1e3],
  ["mb", 1e6],
  ["gb", 1e9],
  ["kib", 1024],
  ["mib", 1024 ** 2],
  ["gib", 1024 ** 3],
]);

/** Parses a byte size: `1048576`, `200MB`, `5GiB` (case-insensitive). */
export function parseSize(raw: string, name: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = SIZE_UNITS.get((match?.[2] ?? "").toLowerCase());
  if (!match || unit === undefined) throw new ConfigError(`${name} must be a size like 1048576, 200MB or 5GiB, got '${raw}'`);
  return Number(match[1]) * unit;
}

function parseEnum(raw: string, name: string, allowed: readonly string[]): string {
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got '${raw}'`);
  return raw;
}

/** Empty, or a postgres:// (postgresql://) URL; anything else is a mistake worth stopping for. */
function parseDatabaseUrl(raw: string): string {
  const url = raw.trim();
  if (url === "") return "";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError("database-url must be empty or a URL like postgres://user:pass@host:5432/db");
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new ConfigError(`database-url must start with postgres://, got '${parsed.protocol}//…'`);
  }
  return url;
}

/** The URL with its password replaced by ***, for printing. */
export function maskPassword(url: string): string {
  if (url === "") return url;
  const parsed = new URL(url);
  if (parsed.password === "") return url;
  parsed.password = "***";
  return parsed.href;
}
