import { resolve } from "node:path";

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
  readonly logLevel: string;
  /** Keep-alive above the 60 s idle timeout of common client pools, so the server never closes first. */
  readonly keepAliveTimeoutMs: number;
  /** The largest file a signed upload may carry; uploads stream, so this bounds disk, not memory. */
  readonly maxUploadBytes: number;
}

interface OptionSpec {
  key: keyof Config;
  flag: string;
  env: string;
  default: string;
  doc: string;
  parse: (raw: string) => Config[keyof Config];
}

export const OPTIONS: readonly OptionSpec[] = [
  { key: "dataDir", flag: "--data-dir", env: "STEPWISE_DATA_DIR", default: "./data",
    doc: "Directory of the embedded store (SQLite database, files, signing secret).", parse: (v) => resolve(v) },
  { key: "host", flag: "--host", env: "STEPWISE_HOST", default: "127.0.0.1",
    doc: "Interface to listen on; 0.0.0.0 for all.", parse: (v) => v },
  { key: "port", flag: "--port", env: "STEPWISE_PORT", default: "8080",
    doc: "TCP port; 0 picks a free one.", parse: (v) => parseInteger(v, "port", 0, 65535) },
  { key: "publicUrl", flag: "--public-url", env: "STEPWISE_PUBLIC_URL", default: "",
    doc: "Base of absolute URLs in responses; empty uses the request's scheme and Host.",
    parse: (v) => v.replace(/\/+$/, "") },
  { key: "staleAfterMs", flag: "--stale-after", env: "STEPWISE_STALE_AFTER", default: "15m",
    doc: "Mark RUNNING runs without heartbeat for this long as FAILED (e.g. 900s, 15m, 2h); 0 disables.",
    parse: (v) => parseDuration(v, "stale-after") },
  { key: "logLevel", flag: "--log-level", env: "STEPWISE_LOG_LEVEL", default: "info",
    doc: "Request log level: fatal, error, warn, info, debug, trace or silent.",
    parse: (v) => parseEnum(v, "log-level", ["fatal", "error", "warn", "info", "debug", "trace", "silent"]) },
  { key: "keepAliveTimeoutMs", flag: "--keep-alive-timeout", env: "STEPWISE_KEEP_ALIVE_TIMEOUT", default: "72s",
    doc: "How long an idle keep-alive connection stays open.", parse: (v) => parseDuration(v, "keep-alive-timeout") },
  { key: "maxUploadBytes", flag: "--max-upload-size", env: "STEPWISE_MAX_UPLOAD_SIZE", default: "5GiB",
    doc: "Largest file accepted by a signed upload (bytes, or with KiB, MiB, GiB, KB, MB, GB).",
    parse: (v) => parseSize(v, "max-upload-size") },
];

export class ConfigError extends Error {}

/** Builds the configuration from flags (already split into name → value) and the environment. */
export function loadConfig(flags: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const option of OPTIONS) {
    const raw = flags[option.flag] ?? env[option.env] ?? option.default;
    config[option.key] = option.parse(raw);
  }
  return Object.freeze(config) as unknown as Config;
}

export function parseInteger(raw: string, name: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `<n>ms|s|m|h|d`; a bare number means seconds, and "0" means zero. */
export function parseDuration(raw: string, name: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name} must be a duration like 30s, 15m, 2h or 7d, got '${raw}'`);
  return Number(match[1]) * DURATION_UNITS[match[2] ?? "s"]!;
}

const SIZE_UNITS: Record<string, number> = { "": 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** Parses a byte size: `1048576`, `200MB`, `5GiB` (case-insensitive). */
export function parseSize(raw: string, name: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? "").toLowerCase()];
  if (!match || unit === undefined) throw new ConfigError(`${name} must be a size like 1048576, 200MB or 5GiB, got '${raw}'`);
  return Number(match[1]) * unit;
}

function parseEnum(raw: string, name: string, allowed: string[]): string {
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(", ")}, got '${raw}'`);
  return raw;
}
