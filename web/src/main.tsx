import { QueryClientProvider } from "@tanstack/preact-query";
import { render } from "preact";
import { App } from "./app.tsx";
import { queryClient } from "./hooks.ts";
import "./styles.css";

render(
  <QueryClientProvider client={queryClient}>
    <App />
  </QueryClientProvider>,
  document.getElementById("app")!,
);
