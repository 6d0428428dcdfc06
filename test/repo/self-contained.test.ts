import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

/** The project explains itself: code and docs cite docs/ headings, never files outside the repository. */
describe("the repository is self-contained", () => {
  it("cites no section numbers of specification files outside it", () => {
    const files = execFileSync("git", ["ls-files", "src", "web/src", "test", "bench", "docs", "README.md"], { encoding: "utf8" })
      .split("\n")
      // Images are not text: a PNG's bytes can read as "§" (docs/analysis.png did).
      .filter((file) => file !== "" && file !== "test/repo/self-contained.test.ts" && !/\.(png|jpe?g|gif)$/i.test(file));
    const offenders = files.filter((file) => /§|\.\.\/shared\//.test(readFileSync(file, "utf8")));
    assert.deepEqual(offenders, []);
  });
});
