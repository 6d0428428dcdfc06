import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { ConfigError, loadConfig, OPTIONS, parseDuration, parseInteger } from "./config.js";

describe("loadConfig", () => {
  it("uses the defaults when neither flags nor environment set anything", () => {
    const config = loadConfig({}, {});
    assert.deepEqual(config, {
      dataDir: resolve("./data"),
      host: "127.0.0.1",
      port: 8080,
      publicUrl: "",
      staleAfterMs: 15 * 60_000,
      logLevel: "info",
      keepAliveTimeoutMs: 72_000,
      maxUploadBytes: 5 * 1024 ** 3,
    });
    assert.ok(Object.isFrozen(config));
  });

  it("takes the environment over the defaults, and flags over the environment", () => {
    const env = { STEPWISE_PORT: "9000", STEPWISE_HOST: "0.0.0.0", STEPWISE_DATA_DIR: "/tmp/env-dir", STEPWISE_STALE_AFTER: "2h" };
    const fromEnv = loadConfig({}, env);
    assert.equal(fromEnv.port, 9000);
    assert.equal(fromEnv.host, "0.0.0.0");
    assert.equal(fromEnv.dataDir, "/tmp/env-dir");
    assert.equal(fromEnv.staleAfterMs, 2 * 3_600_000);
    const fromFlags = loadConfig({ "--port": "9001", "--data-dir": "/tmp/flag-dir" }, env);
    assert.equal(fromFlags.port, 9001);
    assert.equal(fromFlags.dataDir, "/tmp/flag-dir");
    assert.equal(fromFlags.host, "0.0.0.0", "options without a flag still come from the environment");
  });

  it("has a flag, an environment variable and a parsable default for every option", () => {
    for (const option of OPTIONS) {
      assert.match(option.flag, /^--[a-z-]+$/);
      assert.match(option.env, /^STEPWISE_[A-Z_]+$/);
      assert.doesNotThrow(() => option.parse(option.default), option.flag);
    }
    assert.equal(new Set(OPTIONS.map((o) => o.env)).size, OPTIONS.length);
  });

  it("resolves the data directory to an absolute path and strips trailing slashes of the public URL", () => {
    assert.equal(loadConfig({ "--data-dir": "rel/dir" }, {}).dataDir, resolve("rel/dir"));
    assert.equal(loadConfig({ "--public-url": "https://x.example/base//" }, {}).publicUrl, "https://x.example/base");
  });

  it("reads upload sizes in bytes, decimal and binary units", () => {
    const size = (raw: string) => loadConfig({ "--max-upload-size": raw }, {}).maxUploadBytes;
    assert.equal(size("1048576"), 1_048_576);
    assert.equal(size("200MB"), 200_000_000);
    assert.equal(size("5gib"), 5 * 1024 ** 3);
    assert.equal(size("64 KiB"), 65_536);
  });

  it("keeps idle connections longer than the 60 s client pools by default", () => {
    assert.ok(loadConfig({}, {}).keepAliveTimeoutMs >= 65_000);
  });

  it("throws ConfigError naming the option for bad values", () => {
    const bad: [Record<string, string>, Record<string, string>, RegExp][] = [
      [{ "--port": "http" }, {}, /port/],
      [{ "--port": "70000" }, {}, /port/],
      [{ "--port": "-1" }, {}, /port/],
      [{}, { STEPWISE_PORT: "80a" }, /port/],
      [{ "--stale-after": "soon" }, {}, /stale-after/],
      [{ "--stale-after": "-5m" }, {}, /stale-after/],
      [{ "--log-level": "loud" }, {}, /log-level/],
      [{ "--max-upload-size": "5 parsecs" }, {}, /max-upload-size/],
      [{ "--max-upload-size": "-1" }, {}, /max-upload-size/],
      [{ "--keep-alive-timeout": "1w" }, {}, /keep-alive-timeout/],
    ];
    for (const [flags, env, message] of bad) {
      assert.throws(() => loadConfig(flags, env), (error: unknown) => error instanceof ConfigError && message.test(error.message), JSON.stringify({ flags, env }));
    }
  });
});

describe("parseDuration", () => {
  it("reads s, m, h and d, and 0 as zero", () => {
    assert.equal(parseDuration("30s", "d"), 30_000);
    assert.equal(parseDuration("15m", "d"), 900_000);
    assert.equal(parseDuration("2h", "d"), 7_200_000);
    assert.equal(parseDuration("7d", "d"), 604_800_000);
    assert.equal(parseDuration("0", "d"), 0);
    assert.equal(parseDuration("0s", "d"), 0);
  });

  it("rejects anything else with a ConfigError naming the option", () => {
    for (const raw of ["", "d", "1.5h", "-1d", "1w", "5 m", "1e3", "10 minutes", "1h30m"]) {
      assert.throws(() => parseDuration(raw, "expires-in"), (error: unknown) => error instanceof ConfigError && /expires-in/.test(error.message), JSON.stringify(raw));
    }
  });
});

describe("parseInteger", () => {
  it("accepts integers within the bounds only", () => {
    assert.equal(parseInteger("0", "port", 0, 65535), 0);
    assert.equal(parseInteger("65535", "port", 0, 65535), 65535);
    for (const raw of ["65536", "", "1.0", " 1", "0x10"]) assert.throws(() => parseInteger(raw, "port", 0, 65535), ConfigError, raw);
  });
});
