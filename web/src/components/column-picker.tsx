// Choose config keys, system metadata keys and summary metrics as extra runs-table columns.

import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { useAsync } from "../hooks.ts";

import type { Column } from "../lib/saved-views.ts";

export type { Column };

/** Keys seen in the newest runs' configs and metadata, plus the project's metric names. */
async function loadChoices(projectName: string): Promise<Column[]> {
  const [sample, metrics] = await Promise.all([
    api.listRuns({ projectName, limit: 200, offset: 0, includeFieldValues: "true" }),
    api.metricNames(projectName),
  ]);
  const keys = (source: "config" | "systemMetadata", pick: (run: (typeof sample.runs)[number]) => Record<string, unknown> | undefined) =>
    [...new Set(sample.runs.flatMap((run) => Object.keys(pick(run) ?? {})))].sort().map((key) => ({ source, key }));
  return [
    ...keys("config", (run) => run._flatConfig),
    ...keys("systemMetadata", (run) => run._flatSystemMetadata),
    ...metrics.metricNames.map((key) => ({ source: "summary" as const, key })),
  ];
}

const SOURCE_LABELS: Record<Column["source"], string> = { config: "Config", systemMetadata: "System", summary: "Metric (last value)" };

export function ColumnPicker({
  projectName,
  columns,
  onChange,
}: {
  projectName: string;
  columns: Column[];
  onChange: (columns: Column[]) => void;
}) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState("");
  const choices = useAsync(() => (open ? loadChoices(projectName) : Promise.resolve([])), [open, projectName]);
  const isChosen = (choice: Column) => columns.some((column) => column.source === choice.source && column.key === choice.key);
  const toggle = (choice: Column) =>
    onChange(
      isChosen(choice) ? columns.filter((column) => !(column.source === choice.source && column.key === choice.key)) : [...columns, choice],
    );
  const shown = (choices.data ?? []).filter((choice) => choice.key.toLowerCase().includes(search.toLowerCase())).slice(0, 300);

  return (
    <details class="panel" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Columns {columns.length > 0 ? `(${columns.length} chosen)` : ""}</summary>
      <input
        type="search"
        placeholder="Find a key or metric"
        aria-label="Find a column"
        value={search}
        onInput={(event) => setSearch(event.currentTarget.value)}
      />
      {choices.loading && <p class="muted">Loading keys…</p>}
      <ul class="choices" data-testid="column-choices">
        {shown.map((choice) => (
          <li key={`${choice.source}.${choice.key}`}>
            <label>
              <input type="checkbox" checked={isChosen(choice)} onChange={() => toggle(choice)} />
              <span class="muted">{SOURCE_LABELS[choice.source]}</span> {choice.key}
            </label>
          </li>
        ))}
      </ul>
    </details>
  );
}
