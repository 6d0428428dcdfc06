// A project's runs: search, tag/status filters, the filter builder, chosen columns, sorting, paging,
// and selecting runs to compare. Everything but the chosen columns lives in the URL (deep links);
// the columns, with the workspace's layout and hidden runs, travel in a saved view's link.
// On a wide window the table and the charts workspace sit side by side, each pane scrolling on its
// own (workspace.css); on a narrow one the workspace follows the table.

import { useEffect, useState } from "preact/hooks";
import { RUN_STATUSES, runSortOf } from "../../../src/domain/shared-with-ui.ts";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, Pager, StatusBadge, TimeAgo, TruncatedTags } from "../components/common.tsx";
import { ColumnPicker, type Column } from "../components/column-picker.tsx";
import { FilterBuilder } from "../components/filter-builder.tsx";
import { SavedViews } from "../components/saved-views.tsx";
import { RunIdentity } from "../components/workspace/run-identity.tsx";
import { useColumns } from "../components/workspace/stored.ts";
import { Workspace } from "../components/workspace/workspace.tsx";
import { useAsync, useInterval } from "../hooks.ts";
import { formatNumber, formatRunDuration, formatValue } from "../lib/format.ts";
import { divergedRunMark, endKind } from "../lib/series-end.ts";
import { Link, comparePath, leaderboardPath, navigate, runPath, setQuery, useLocation } from "../router.tsx";
import type { Comparison, RunListItem } from "../types.ts";

const PAGE_SIZE = 50;

/** The API's sort key of a column, or undefined when the run list cannot sort by it (the server's runSortOf decides). */
function sortKey(column: string): string | undefined {
  const key = column.startsWith("summary.")
    ? `summary_metrics.${column.slice("summary.".length)}`
    : column === "displayId"
      ? "createdAt" // display numbers grow with creation
      : column;
  return runSortOf(key) ? key : undefined;
}

/** How often the table reloads while one of its runs is RUNNING. */
const LIVE_INTERVAL_MS = 5000;

type RunStats = NonNullable<Comparison["runs"][number]["stats"]>;

/**
 * Summary metric values of the page's runs, one comparison request per metric column: the last
 * finite value (what sorting and filtering use) and the last point of any kind.
 */
async function loadSummaries(projectName: string, runs: RunListItem[], metrics: string[]) {
  const values = new Map<string, RunStats | null>();
  if (runs.length === 0) return values;
  const ids = runs.map((run) => run.id);
  await Promise.all(
    metrics.map(async (metric) => {
      const comparison = await api.compare(projectName, ids, metric);
      for (const run of comparison.runs) values.set(`${run.runId}|${metric}`, run.stats);
    }),
  );
  return values;
}

/** A metric column's cell: the last finite value, after the non-finite end of a diverged series. */
function SummaryCell({ stats }: { stats: RunStats | null | undefined }) {
  const kind = endKind(stats?.lastPoint);
  if (!stats?.lastPoint || !kind) return <>{formatNumber(stats?.final)}</>;
  const step = formatNumber(stats.lastPoint.step);
  return (
    <span title={`last ${kind} @ ${step}; last finite ${formatNumber(stats.final)} (the column sorts by the last finite value)`}>
      <span class="diverged" data-diverged={kind}>
        {kind} @ {step}
      </span>{" "}
      <span class="muted">({formatNumber(stats.final)})</span>
    </span>
  );
}

/** Beside a run's name: its series that ended in NaN or ±Inf (`NaN +1`, all of them on hover). */
function DivergedRunMark({ metrics }: { metrics: RunListItem["divergedMetrics"] }) {
  const mark = divergedRunMark(metrics);
  if (!mark) return null;
  return (
    <span class="diverged run-diverged" data-testid="diverged-run" title={mark.title}>
      ⚠ {mark.text}
    </span>
  );
}

export function RunsPage({ projectName }: { projectName: string }) {
  const { query } = useLocation();
  const search = query.get("search") ?? "";
  const tags = query.get("tags") ?? "";
  const status = query.get("status") ?? "";
  const sort = query.get("sort") ?? "-createdAt";
  const filter = query.get("filter") ?? "";
  const offset = Number(query.get("offset") ?? 0) || 0;
  const [columns, setColumns] = useColumns(projectName);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [searchText, setSearchText] = useState(search);
  useEffect(() => setSearchText(search), [search]);

  const fieldColumns = columns.filter((column) => column.source !== "summary");
  const metricColumns = columns.filter((column) => column.source === "summary").map((column) => column.key);
  const runs = useAsync(
    () =>
      api.listRuns({
        projectName,
        search,
        tags,
        status,
        sort,
        filter,
        limit: PAGE_SIZE,
        offset,
        includeFieldValues: fieldColumns.length > 0 ? "true" : undefined,
        includeDiverged: "true",
        visibleColumns: fieldColumns.length > 0 ? JSON.stringify(fieldColumns) : undefined,
      }),
    [projectName, search, tags, status, sort, filter, offset, JSON.stringify(fieldColumns)],
  );
  const summaries = useAsync(() => loadSummaries(projectName, runs.data?.runs ?? [], metricColumns), [runs.data, metricColumns.join("\n")]);
  // While a run of the page runs, its duration, status and metric values move: reload the page.
  useInterval(runs.reload, LIVE_INTERVAL_MS, runs.data?.runs.some((run) => run.status === "RUNNING") ?? false);

  const headers: { id: string; label: string }[] = [
    { id: "status", label: "Status" },
    { id: "name", label: "Name" },
    { id: "displayId", label: "ID" },
    { id: "tags", label: "Tags" },
    { id: "createdAt", label: "Created" },
    { id: "duration", label: "Duration" },
    ...columns.map((column) => ({ id: `${column.source}.${column.key}`, label: column.key })),
  ];
  const toggleSort = (id: string) => {
    const key = sortKey(id);
    if (key) setQuery({ sort: sort === key ? `-${key}` : key, offset: undefined });
  };
  const pageIds = runs.data?.runs.map((run) => run.id) ?? [];
  const pageSelected = pageIds.filter((id) => selected.has(id)).length;
  // Select-all selects (or, when all are selected, clears) the runs of the page.
  const toggleAll = () => {
    const next = new Set(selected);
    for (const id of pageIds) {
      if (pageSelected === pageIds.length) next.delete(id);
      else next.add(id);
    }
    setSelected(next);
  };
  const toggle = (runId: number) => {
    const next = new Set(selected);
    if (next.has(runId)) next.delete(runId);
    else next.add(runId);
    setSelected(next);
  };
  const cell = (run: RunListItem, column: Column) => {
    if (column.source === "summary") return <SummaryCell stats={summaries.data?.get(`${run.id}|${column.key}`)} />;
    const values = column.source === "config" ? run._flatConfig : run._flatSystemMetadata;
    return formatValue(values?.[column.key]);
  };
  const now = Date.now();

  return (
    <section class="runs-page">
      <PageTitle title={projectName}>
        <nav class="actions" aria-label="Project">
          <SavedViews projectName={projectName} query={{ search, tags, status, sort, filter }} />
          <Link href={leaderboardPath(projectName)}>Leaderboard</Link>
          <button
            type="button"
            disabled={selected.size < 1}
            onClick={() => navigate(comparePath(projectName, [...selected]))}
            data-testid="compare-selected"
          >
            Compare {selected.size > 0 ? `(${selected.size})` : ""}
          </button>
        </nav>
      </PageTitle>

      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ search: searchText, offset: undefined });
        }}
      >
        <label>
          Name
          <input
            type="search"
            placeholder="Search names"
            value={searchText}
            onInput={(event) => setSearchText(event.currentTarget.value)}
          />
        </label>
        <label>
          Tags
          <input
            type="text"
            placeholder="tag1, tag2"
            value={tags}
            onChange={(event) => setQuery({ tags: event.currentTarget.value.trim(), offset: undefined })}
          />
        </label>
        <fieldset class="statuses">
          <legend>Status</legend>
          {RUN_STATUSES.map((name) => {
            const chosen = status.split(",").filter(Boolean);
            return (
              <label key={name}>
                <input
                  type="checkbox"
                  checked={chosen.includes(name)}
                  onChange={() =>
                    setQuery({
                      status: (chosen.includes(name) ? chosen.filter((s) => s !== name) : [...chosen, name]).join(","),
                      offset: undefined,
                    })
                  }
                />
                {name.toLowerCase()}
              </label>
            );
          })}
        </fieldset>
        <button type="submit">Search</button>
      </form>
      <FilterBuilder projectName={projectName} filter={filter} onApply={(text) => setQuery({ filter: text, offset: undefined })} />
      <ColumnPicker projectName={projectName} columns={columns} onChange={setColumns} />

      <ErrorNote error={runs.error ?? summaries.error} />
      <div class="runs-layout">
        <div class="runs-pane">
          {runs.loading && !runs.data && <Loading what="runs" />}
          {runs.data && (
            <>
              <div class="table-scroll">
                <table class="data-table runs-table" data-testid="runs-table" aria-busy={runs.loading}>
                  <thead>
                    <tr>
                      <th scope="col" class="pin pin-select">
                        <input
                          type="checkbox"
                          aria-label="Select all runs of the page"
                          data-testid="select-all"
                          checked={pageIds.length > 0 && pageSelected === pageIds.length}
                          indeterminate={pageSelected > 0 && pageSelected < pageIds.length}
                          disabled={pageIds.length === 0}
                          onChange={toggleAll}
                        />
                      </th>
                      <th scope="col" class="pin pin-identity">
                        <span class="visually-hidden">Colour and visibility in the charts</span>
                      </th>
                      {headers.map((header) => {
                        const key = sortKey(header.id);
                        const direction = sort === key ? "ascending" : sort === `-${key}` ? "descending" : undefined;
                        return (
                          <th
                            scope="col"
                            key={header.id}
                            aria-sort={direction ?? "none"}
                            data-column={header.id}
                            class={header.id === "name" ? "pinned" : header.id === "status" ? "pin pin-status" : undefined}
                          >
                            {key ? (
                              <button type="button" class="sort" onClick={() => toggleSort(header.id)}>
                                {header.label} {direction === "ascending" ? "▲" : direction === "descending" ? "▼" : ""}
                              </button>
                            ) : (
                              header.label
                            )}
                          </th>
                        );
                      })}
                    </tr>
                  </thead>
                  <tbody>
                    {runs.data.runs.map((run) => (
                      <tr key={run.id} data-run-id={run.id}>
                        <td class="pin pin-select">
                          <input
                            type="checkbox"
                            aria-label={`Select ${run.name}`}
                            checked={selected.has(run.id)}
                            onChange={() => toggle(run.id)}
                          />
                        </td>
                        <td class="pin pin-identity">
                          <RunIdentity projectName={projectName} runId={run.id} runName={run.name} />
                        </td>
                        <td class="pin pin-status">
                          <StatusBadge status={run.status} />
                        </td>
                        <td class="pinned">
                          <Link href={runPath(projectName, run.id)} class="truncate run-name" title={run.name}>
                            {run.name}
                          </Link>
                          <DivergedRunMark metrics={run.divergedMetrics} />
                        </td>
                        <td class="mono">{run.displayId ?? run.id}</td>
                        <td>
                          <TruncatedTags tags={run.tags} />
                        </td>
                        <td>
                          <TimeAgo iso={run.createdAt} />
                        </td>
                        <td>{formatRunDuration(run, now)}</td>
                        {columns.map((column) => (
                          <td key={`${column.source}.${column.key}`} class="number">
                            {cell(run, column)}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {runs.data.runs.length === 0 && <p class="muted">No runs match.</p>}
              <Pager
                offset={offset}
                limit={PAGE_SIZE}
                total={runs.data.total}
                label="runs"
                onOffset={(next) => setQuery({ offset: next || undefined })}
              />
            </>
          )}
        </div>
        <div class="workspace-pane">
          {/* Stacked below the table, the charts wait for its first page (workspace.tsx says why). */}
          <Workspace
            projectName={projectName}
            selection={{ search, tags, status, sort, filter }}
            tableReady={Boolean(runs.data || runs.error)}
          />
        </div>
      </div>
    </section>
  );
}
