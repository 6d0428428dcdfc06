import { defineConfig } from "vite";

// The web UI: Preact + uPlot, built into dist/web and served by the API process (src/http/web-ui.ts).
export default defineConfig({
  root: "web",
  base: "/",
  build: { outDir: "../dist/web", emptyOutDir: true, chunkSizeWarningLimit: 600 },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
});
