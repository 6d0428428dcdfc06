import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";

/** CI runs `.ci/run` on a clean clone; both of these failed CI once before any test ran. */
describe("what CI runs before the tests", () => {
  it(".ci/run is valid bash", () => {
    execFileSync("bash", ["-n", ".ci/run"], { stdio: "pipe" });
  });

  it("package-lock.json agrees with package.json, so `npm ci` installs", () => {
    execFileSync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], { stdio: "pipe" });
  });
});
