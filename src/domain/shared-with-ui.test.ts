import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const domain = dirname(fileURLToPath(import.meta.url));
const root = resolve(domain, "../..");

/** `import … from "x"` and `export … from "x"` of a module, and whether each is type-only (erased, so never bundled). */
function importsOf(file: string): { specifier: string; typeOnly: boolean }[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)\s+(type\s+)?(?:[\w\s{},*$]+?\s+from\s+)?["']([^"']+)["']/gm)].map((match) => ({
    specifier: match[2]!,
    typeOnly: match[1] !== undefined,
  }));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("shared-with-ui", () => {
  it("reaches only pure domain modules: no Node API, no package", () => {
    const seen = new Set<string>();
    const pending = [join(domain, "shared-with-ui.ts")];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      for (const { specifier, typeOnly } of importsOf(file)) {
        if (typeOnly) continue;
        const where = relative(root, file);
        // A module of src/domain (its folders included, e.g. alerts/), never a package or a Node API.
        assert.match(specifier, /^\.\.?\/[\w./-]+\.js$/, `${where} imports '${specifier}', which the browser bundle would take`);
        const target = resolve(dirname(file), specifier.replace(/\.js$/, ".ts"));
        assert.ok(!relative(domain, target).startsWith(".."), `${where} imports '${specifier}', outside src/domain`);
        pending.push(target);
      }
    }
    assert.ok(seen.size > 5, "the walk found the re-exported modules");
  });

  it("is the web UI's only way to the server's values (types aside)", () => {
    const web = join(root, "web/src");
    for (const file of sourceFiles(web)) {
      for (const { specifier, typeOnly } of importsOf(file)) {
        if (!specifier.startsWith(".") || typeOnly) continue;
        const target = relative(root, resolve(dirname(file), specifier));
        if (target.startsWith("web/")) continue;
        assert.equal(target, "src/domain/shared-with-ui.ts", `${relative(root, file)} imports ${target}`);
      }
    }
  });
});
