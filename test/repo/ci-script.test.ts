import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

const PREREQUISITES = "scripts/test-prerequisites.sh";

/** The lines of a shell script that do something: no comments, no blank lines. */
function commands(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/**
 * CI runs `.ci/run` on a clean clone; it once failed before any test ran, and once did what a fresh
 * machine following the README did not (install Chromium and Swift, start PostgreSQL).
 */
describe("what CI runs before the tests", () => {
  it(".ci/run is valid bash and runs the README's commands alone: npm ci, then npm test", () => {
    execFileSync("bash", ["-n", ".ci/run"], { stdio: "pipe" });
    assert.deepEqual(commands(".ci/run"), ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "npm ci --no-audit --no-fund", "npm test"]);
    assert.match(readFileSync("README.md", "utf8"), /^npm test +# the whole test suite/m);
  });

  it("npm test makes its prerequisites present first, with a script that is valid bash", () => {
    execFileSync("bash", ["-n", PREREQUISITES], { stdio: "pipe" });
    const { scripts } = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> };
    assert.match(scripts.test!, new RegExp(`^bash ${PREREQUISITES} && `));
  });

  it("with everything present, the prerequisites step does nothing, says nothing and is quick", () => {
    // --check takes the same path as the step npm test runs, but installs and starts nothing when
    // something is missing: it fails with the list instead.
    const started = performance.now();
    const result = spawnSync("bash", [PREREQUISITES, "--check"], { encoding: "utf8" });
    const ms = performance.now() - started;
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout + result.stderr, "");
    // About 0.2 s (pg_isready's wrapper is most of it); the bound leaves room for a loaded machine
    // and still catches an apt-get or a PostgreSQL start on every run.
    assert.ok(ms < 2000, `took ${Math.round(ms)} ms`);
  });

  it("package-lock.json agrees with package.json, so `npm ci` installs", () => {
    execFileSync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], { stdio: "pipe" });
  });
});
