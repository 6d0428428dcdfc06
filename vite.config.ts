import { relative } from "node:path";
import { defineConfig, type Plugin } from "vite";

const root = import.meta.dirname;

/**
 * The bundle takes no Node built-in and no server code outside src/domain/ (the UI reaches it through
 * src/domain/shared-with-ui.ts alone, docs/architecture.md "Rules the UI shares", which
 * shared-with-ui.test.ts checks): the build fails naming the module that would have leaked.
 */
function browserOnly(): Plugin {
  return {
    name: "stepwise:browser-only",
    apply: "build",
    buildEnd() {
      for (const id of this.getModuleIds()) {
        const path = relative(root, id);
        // Packages may resolve outside the worktree (a linked node_modules).
        const allowed = path.startsWith("web/") || path.startsWith("src/domain/") || id.includes("/node_modules/") || id.startsWith("\0");
        if (!allowed || id.startsWith("node:") || id.includes("__vite-browser-external"))
          this.error(
            `${path} is not browser code: the UI takes no Node built-in, and server code only through src/domain/shared-with-ui.ts`,
          );
      }
    },
  };
}

// The web UI: Preact + uPlot, built into dist/web and served by the API process (src/http/web-ui.ts).
export default defineConfig({
  root: "web",
  base: "/",
  build: { outDir: "../dist/web", emptyOutDir: true, chunkSizeWarningLimit: 600 },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [browserOnly()],
});
