// Parameter importance for the chosen metric (lib/importance.ts): per config key its correlation
// and its share of a random forest's variance reduction, sortable by either.

import { useState } from "preact/hooks";
import { formatNumber } from "../../lib/format.ts";
import type { Importance } from "../../lib/importance.ts";

type SortBy = "importance" | "correlation" | "key";

export function ImportanceTable({ entries, metric, runs }: { entries: readonly Importance[]; metric: string; runs: number }) {
  const [sortBy, setSortBy] = useState<SortBy>("importance");
  const sorted = [...entries].sort((a, b) =>
    sortBy === "key"
      ? a.key.localeCompare(b.key)
      : sortBy === "correlation"
        ? Math.abs(b.correlation ?? 0) - Math.abs(a.correlation ?? 0) || a.key.localeCompare(b.key)
        : b.importance - a.importance || a.key.localeCompare(b.key),
  );
  const header = (id: SortBy, label: string) => (
    <th scope="col" aria-sort={sortBy === id ? (id === "key" ? "ascending" : "descending") : "none"}>
      <button type="button" class="sort" onClick={() => setSortBy(id)}>
        {label} {sortBy === id ? (id === "key" ? "▲" : "▼") : ""}
      </button>
    </th>
  );
  return (
    <div class="importance">
      <p class="muted">
        With respect to <strong>{metric}</strong> (its last value), over {runs} runs that have it.
      </p>
      <table class="data-table" data-testid="importance">
        <thead>
          <tr>
            {header("key", "Config key")}
            {header("importance", "Importance")}
            {header("correlation", "Correlation")}
            <th scope="col">Values</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((entry) => (
            <tr key={entry.key} data-key={entry.key}>
              <td class="mono">{entry.key}</td>
              <td class="number">
                <span class="importance-bar" style={{ width: `${Math.round(entry.importance * 60)}px` }} />
                {formatNumber(entry.importance)}
              </td>
              <td class="number" title={entry.kind === "numeric" ? "Pearson's r" : "correlation ratio η (the levels have no order)"}>
                {entry.correlation === null ? "–" : `${entry.kind === "categorical" ? "η " : ""}${formatNumber(entry.correlation)}`}
              </td>
              <td class="muted">
                {entry.kind === "numeric" ? "numbers" : `${entry.levels} levels`}
                {entry.missing > 0 ? `, ${entry.missing} missing` : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
