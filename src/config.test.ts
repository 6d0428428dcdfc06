import assert from "node:assert/strict";
import { resolve } from "node:path";
import { describe, it } from "node:test";
import { ConfigError, loadConfig, OPTIONS, parseBlobUrl, parseDuration, parseInteger } from "./config.js";

describe("loadConfig", () => {
  it("uses the defaults when neither flags nor environment set anything", () => {
    const config = loadConfig({}, {});
    assert.deepEqual(config, {
      dataDir: resolve("./data"),
      host: "127.0.0.1",
      port: 8080,
      publicUrl: "",
      trustProxy: "",
      staleAfterMs: 15 * 60_000,
      deletedRetentionMs: 30 * 86_400_000,
      logLevel: "info",
      keepAliveTimeoutMs: 72_000,
      maxUploadBytes: 5 * 1024 ** 3,
      headersTimeoutMs: 15_000,
      bodyTimeoutMs: 15_000,
      maxConnections: 1000,
      shutdownTimeoutMs: 30_000,
      storeBusyTimeoutMs: 100,
      storeLockTimeoutMs: 5000,
      storeStatementTimeoutMs: 30_000,
      minFreeSpaceBytes: 64 * 1024 ** 2,
      blobUrl: "",
      s3Endpoint: "",
      s3Region: "us-east-1",
      s3ForcePathStyle: false,
      s3DirectUrls: true,
      databaseUrl: "",
      authCacheTtl: "auto",
      sessionIdleMs: 12 * 3_600_000,
      sessionMaxAgeMs: 7 * 86_400_000,
      metricsEnabled: true,
      metricsToken: "",
      alertsAllowHosts: "",
      alertsMaxAttempts: 10,
      alertsConcurrency: 8,
      oidcIssuer: "",
      oidcClientId: "",
      oidcClientSecret: "",
      oidcAllowedDomains: "",
      oidcDefaultRole: "viewer",
      oidcOrganization: "default",
    });
    assert.ok(Object.isFrozen(config));
  });

  it("takes single sign-on's options from flags or STEPWISE_OIDC_*, and refuses an unusable issuer", () => {
    const config = loadConfig(
      { "--oidc-issuer": "https://accounts.example.com/realms/lab", "--oidc-allowed-domains": " Example.com,lab.example.org" },
      { STEPWISE_OIDC_CLIENT_ID: "stepwise", STEPWISE_OIDC_CLIENT_SECRET: "s3cret", STEPWISE_OIDC_DEFAULT_ROLE: "member" },
    );
    assert.deepEqual(
      [config.oidcIssuer, config.oidcClientId, config.oidcClientSecret, config.oidcAllowedDomains, config.oidcDefaultRole],
      ["https://accounts.example.com/realms/lab", "stepwise", "s3cret", "example.com,lab.example.org", "member"],
    );
    assert.equal(OPTIONS.find((option) => option.key === "oidcClientSecret")!.display!("s3cret"), "***");
    assert.equal(loadConfig({ "--oidc-issuer": "http://127.0.0.1:9000", "--oidc-client-id": "x" }, {}).oidcIssuer, "http://127.0.0.1:9000");
    assert.throws(() => loadConfig({ "--oidc-issuer": "https://accounts.example.com" }, {}), /oidc-issuer needs oidc-client-id/);
    for (const [flag, value] of [
      ["--oidc-issuer", "http://accounts.example.com"],
      ["--oidc-issuer", "accounts.example.com"],
      ["--oidc-issuer", "https://accounts.example.com/?x=1"],
      ["--oidc-allowed-domains", "*.example.com"],
      ["--oidc-default-role", "owner"],
    ]) {
      assert.throws(() => loadConfig({ [flag!]: value!, "--oidc-client-id": "x" }, {}), ConfigError, `${flag} ${value}`);
    }
  });

  it("checks the alert allow-list and refuses an entry that is neither a host nor a range", () => {
    assert.equal(
      loadConfig({ "--alerts-allow-hosts": " hooks.internal, 10.0.0.0/8 127.0.0.1" }, {}).alertsAllowHosts,
      "hooks.internal, 10.0.0.0/8 127.0.0.1",
    );
    assert.throws(() => loadConfig({}, { STEPWISE_ALERTS_ALLOW_HOSTS: "http://x/" }), ConfigError);
    assert.throws(() => loadConfig({ "--alerts-max-attempts": "0" }, {}), ConfigError);
  });

  it("takes the trusted proxies as addresses and CIDR ranges, and refuses anything else", () => {
    assert.equal(loadConfig({ "--trust-proxy": " 127.0.0.1, 10.0.0.0/8,::1 " }, {}).trustProxy, "127.0.0.1,10.0.0.0/8,::1");
    assert.equal(loadConfig({}, { STEPWISE_TRUST_PROXY: "fd00::/8" }).trustProxy, "fd00::/8");
    for (const bad of ["true", "proxy.internal", "10.0.0.0/33", "::1/129", "10.0.0.0/8/1", "10.0.0.0/x"]) {
      assert.throws(() => loadConfig({ "--trust-proxy": bad }, {}), /trust-proxy: .* is not an IP address or CIDR range/, bad);
    }
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
      assert.match(option.flag, /^--[a-z][a-z0-9-]+$/);
      assert.match(option.env, /^STEPWISE_[A-Z][A-Z0-9_]+$/);
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
      [{ "--max-upload-size": "5constructor" }, {}, /max-upload-size/],
      [{ "--max-upload-size": "-1" }, {}, /max-upload-size/],
      [{ "--keep-alive-timeout": "1w" }, {}, /keep-alive-timeout/],
      [{ "--headers-timeout": "0" }, {}, /headers-timeout must be above zero/],
      [{ "--body-timeout": "0s" }, {}, /body-timeout must be above zero/],
      [{ "--max-connections": "0" }, {}, /max-connections/],
      [{ "--metrics": "yes" }, {}, /metrics must be one of true, false/],
      [{}, { STEPWISE_METRICS_TOKEN: "two words" }, /metrics-token must not contain spaces/],
      [{ "--shutdown-timeout": "soon" }, {}, /shutdown-timeout/],
      [{ "--store-busy-timeout": "-1" }, {}, /store-busy-timeout/],
      [{ "--min-free-space": "lots" }, {}, /min-free-space/],
    ];
    for (const [flags, env, message] of bad) {
      assert.throws(
        () => loadConfig(flags, env),
        (error: unknown) => error instanceof ConfigError && message.test(error.message),
        JSON.stringify({ flags, env }),
      );
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
      assert.throws(
        () => parseDuration(raw, "expires-in"),
        (error: unknown) => error instanceof ConfigError && /expires-in/.test(error.message),
        JSON.stringify(raw),
      );
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

describe("file store options", () => {
  it("reads s3://bucket/prefix blob URLs, with the prefix ending in one slash", () => {
    assert.deepEqual(parseBlobUrl("s3://my-bucket"), { bucket: "my-bucket", prefix: "" });
    assert.deepEqual(parseBlobUrl("s3://my-bucket/"), { bucket: "my-bucket", prefix: "" });
    assert.deepEqual(parseBlobUrl("s3://my.bucket-2/team/stepwise/"), { bucket: "my.bucket-2", prefix: "team/stepwise/" });
    assert.equal(loadConfig({}, { STEPWISE_BLOB_URL: "s3://b-1/x" }).blobUrl, "s3://b-1/x");
  });

  it("refuses blob URLs that are not S3, bad bucket names and prefixes with path tricks", () => {
    for (const url of ["file:///tmp", "s3://", "s3://A_Bucket", "s3://x", "s3://b-1/../up", "s3://b-1/a//b", "s3://b-1/a/./b"]) {
      assert.throws(() => loadConfig({ "--blob-url": url }, {}), ConfigError, url);
    }
  });

  it("takes an http(s) endpoint without a path, a region name, and true or false switches", () => {
    const config = loadConfig(
      { "--s3-endpoint": "http://127.0.0.1:9000/", "--s3-force-path-style": "true", "--s3-direct-urls": "false" },
      {},
    );
    assert.deepEqual([config.s3Endpoint, config.s3ForcePathStyle, config.s3DirectUrls], ["http://127.0.0.1:9000", true, false]);
    for (const [flag, value] of [
      ["--s3-endpoint", "minio:9000"],
      ["--s3-endpoint", "http://minio:9000/bucket"],
      ["--s3-region", "US East"],
      ["--s3-force-path-style", "yes"],
    ]) {
      assert.throws(() => loadConfig({ [flag!]: value! }, {}), ConfigError, `${flag} ${value}`);
    }
  });
});
