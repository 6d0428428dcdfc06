// A project's runs: search, tag/status filters, the filter builder, chosen columns, sorting, paging,
// and selecting runs to compare. Everything but the chosen columns lives in the URL (deep links);
// the columns, with the workspace's layout and hidden runs, travel in a saved view's link.
// On a wide window the table and the charts workspace sit side by side, each pane scrolling on its
// own (workspace.css); on a narrow one the workspace follows the table.

import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { RUN_STATUSES, runSortOf } from "../../../src/domain/shared-with-ui.ts";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, Pager, StatusBadge, TimeAgo, TruncatedTags } from "../components/common.tsx";
import { ColumnPicker } from "../components/column-picker.tsx";
import { lazy } from "../components/lazy.tsx";
import { FilterBuilder } from "../components/filter-builder.tsx";
import { SavedViews } from "../components/saved-views.tsx";
import { highlightRun, RunColors, useHighlightedRun } from "../components/run-colors.tsx";
import { RunIdentity } from "../components/workspace/run-identity.tsx";
import { Splitter, useSplit } from "../components/workspace/split.tsx";
import { useColumns, useLayout, usePickedColors } from "../components/workspace/stored.ts";
import { fieldValuesFor, Workspace } from "../components/workspace/workspace.tsx";
import { useServerState, useStoredState } from "../hooks.ts";
import { formatNumber, formatRunDuration, formatValue } from "../lib/format.ts";
import { type Group, groupRuns, groupValue } from "../lib/grouping.ts";
import { assignRunColors, runColor } from "../lib/run-color.ts";
import { AGGREGATES, type Aggregate, type Column, columnId, defaultColumns } from "../lib/run-columns.ts";
import { divergedRunMark, endKind } from "../lib/series-end.ts";
import { parseBrushes, withBrushes } from "../lib/sweep-axes.ts";
import { Link, comparePath, leaderboardPath, navigate, runPath, setQuery, settingsPath, trashPath, useLocation } from "../router.tsx";
import type { Comparison, RunListItem } from "../types.ts";

const Analysis = lazy("the analysis", () => import("../components/analysis/analysis.tsx").then((module) => module.Analysis));
const PAGE_SIZE = 50;
/** Grouped, a page holds the run list's most: groups fold the runs of one page. */
const GROUPED_PAGE_SIZE = 200;

/**
 * The API's sort key of a column, or undefined when the run list cannot sort by it (the server's
 * runSortOf decides): it sorts by a metric's last finite value, not by its minimum or maximum.
 */
function sortKey(id: string, column?: Column): string | undefined {
  if (column?.aggregate && column.aggregate !== "last") return undefined;
  const key = column?.source === "summary" ? `summary_metrics.${column.key}` : id === "displayId" ? "createdAt" : id; // display numbers grow with creation
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
  // The filter the user wrote, and the one the table and charts apply: with the analysis's brushes.
  const writtenFilter = query.get("filter") ?? "";
  const brushes = parseBrushes(query.get("brush"));
  const filter = withBrushes(writtenFilter, brushes);
  const [analysisOpen, setAnalysisOpen] = useStoredState(`stepwise.analysis.${projectName}`, false);
  const offset = Number(query.get("offset") ?? 0) || 0;
  // The chosen columns (null: none chosen, the defaults apply).
  const [chosenColumns, setColumns] = useColumns(projectName);
  const metricNames = useServerState(["metricNames", projectName, undefined], () => api.metricNames(projectName), {
    enabled: chosenColumns === null,
  });
  // The ticked runs, kept whole: "charts: ticked runs only" draws them wherever they were ticked (any page).
  const [selected, setSelected] = useState<Map<number, RunListItem>>(new Map());
  const [tickedOnly, setTickedOnly] = useState(false);
  const [split, setSplit] = useSplit();
  // The runs the workspace draws (hidden ones too: hiding a run keeps the others' colours) are
  // coloured as a set; a row beyond them takes its own colour.
  const [chartRunIds, setChartRunIds] = useState<readonly number[]>([]);
  const { picked } = usePickedColors(projectName);
  const colors = useMemo(() => assignRunColors(chartRunIds, picked), [chartRunIds, picked]);
  const colorOf = useCallback((runId: number) => colors.get(runId) ?? runColor(runId, picked.get(runId)), [colors, picked]);
  const highlighted = useHighlightedRun();
  const [searchText, setSearchText] = useState(search);
  useEffect(() => setSearchText(search), [search]);

  const [layout] = useLayout(projectName);
  const grouping = layout.grouping;
  const grouped = grouping.keys.length > 0;
  const pageSize = grouped ? GROUPED_PAGE_SIZE : PAGE_SIZE;
  const [unfolded, setUnfolded] = useState<ReadonlySet<string>>(new Set());
  const fieldColumns = (chosenColumns ?? []).filter((column) => column.source !== "summary");
  // The grouping's config keys come with the page's runs too, shown as columns or not. Until
  // columns are chosen, the runs come with their whole config: the default columns are the keys
  // that differ between them (one request, not a second read of the page for its defaults).
  const fieldRequest = chosenColumns === null ? { includeFieldValues: "true" } : fieldValuesFor(grouping.keys, fieldColumns);
  const runs = useServerState(
    ["runList", projectName, search, tags, status, sort, filter, offset, pageSize, fieldRequest.visibleColumns ?? "all"],
    () =>
      api.listRuns({
        projectName,
        search,
        tags,
        status,
        sort,
        filter,
        limit: pageSize,
        offset,
        includeDiverged: "true",
        ...fieldRequest,
      }),
    // While a run of the page runs, its duration, status and metric values move: the page reloads.
    { every: (page) => (page?.runs.some((run) => run.status === "RUNNING") ? LIVE_INTERVAL_MS : false) },
  );
  const defaults = useMemo(
    () =>
      chosenColumns === null && runs.data && metricNames.data
        ? defaultColumns(
            runs.data.runs.map((run) => run._flatConfig ?? {}),
            metricNames.data.metricNames,
          )
        : [],
    [chosenColumns === null, runs.data, metricNames.data],
  );
  const columns = chosenColumns ?? defaults;
  const metricColumns = [...new Set(columns.filter((column) => column.source === "summary").map((column) => column.key))];
  const pageRunIds = runs.data?.runs.map((run) => run.id).join(",") ?? "";
  const summaries = useServerState(
    ["runSummaries", projectName, pageRunIds, metricColumns.join("\n")],
    () => loadSummaries(projectName, runs.data?.runs ?? [], metricColumns),
    { enabled: runs.data !== undefined, every: runs.data?.runs.some((run) => run.status === "RUNNING") && LIVE_INTERVAL_MS },
  );

  const headers: { id: string; label: string; column?: Column }[] = [
    { id: "status", label: "Status" },
    { id: "name", label: "Name" },
    { id: "displayId", label: "ID" },
    { id: "tags", label: "Tags" },
    { id: "createdAt", label: "Created" },
    { id: "duration", label: "Duration" },
    ...columns.map((column) => ({ id: columnId(column), label: column.key, column })),
  ];
  const toggleSort = (id: string, column?: Column) => {
    const key = sortKey(id, column);
    if (key) setQuery({ sort: sort === key ? `-${key}` : key, offset: undefined });
  };
  const pageIds = runs.data?.runs.map((run) => run.id) ?? [];
  const pageSelected = pageIds.filter((id) => selected.has(id)).length;
  // Select-all selects (or, when all are selected, clears) the runs of the page.
  const toggleAll = () => {
    const next = new Map(selected);
    for (const run of runs.data?.runs ?? []) {
      if (pageSelected === pageIds.length) next.delete(run.id);
      else next.set(run.id, run);
    }
    setSelected(next);
  };
  const toggle = (run: RunListItem) => {
    const next = new Map(selected);
    if (next.has(run.id)) next.delete(run.id);
    else next.set(run.id, run);
    setSelected(next);
  };
  const tickedRuns = useMemo(() => [...selected.values()], [selected]);
  const [deleteFailure, setDeleteFailure] = useState<string>();
  // Ticked runs go to the trash (restorable there until their purge date) after a confirmation.
  const deleteTicked = async () => {
    const count = selected.size;
    if (!window.confirm(`Delete ${count} run${count === 1 ? "" : "s"}? They move to the trash, restorable until they are purged.`)) return;
    setDeleteFailure(undefined);
    try {
      await api.deleteRuns([...selected.keys()]);
      setSelected(new Map());
      runs.reload();
    } catch (error) {
      setDeleteFailure((error as Error).message);
    }
  };
  const setAggregate = (column: Column, aggregate: Aggregate) =>
    setColumns(columns.map((other) => (other === column ? { ...other, aggregate } : other)));
  const cell = (run: RunListItem, column: Column) => {
    if (column.source === "summary") {
      const stats = summaries.data?.get(`${run.id}|${column.key}`);
      if (column.aggregate === "min" || column.aggregate === "max") return formatNumber(stats?.[column.aggregate]);
      return <SummaryCell stats={stats} />;
    }
    const values = column.source === "config" ? run._flatConfig : run._flatSystemMetadata;
    return formatValue(values?.[column.key]);
  };
  const now = Date.now();
  const runRow = (run: RunListItem) => (
    <tr
      key={run.id}
      data-run-id={run.id}
      class={highlighted === run.id ? "highlighted" : undefined}
      onMouseEnter={() => highlightRun(run.id)}
      onMouseLeave={() => highlightRun(null)}
    >
      <td class="pin pin-select">
        <input type="checkbox" aria-label={`Select ${run.name}`} checked={selected.has(run.id)} onChange={() => toggle(run)} />
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
        <td key={columnId(column)} class="number">
          {cell(run, column)}
        </td>
      ))}
    </tr>
  );
  const groupCell = (members: RunListItem[], column: Column) => {
    if (column.source === "summary") {
      const aggregate = column.aggregate ?? "last";
      const values = members.map((run) => {
        const stats = summaries.data?.get(`${run.id}|${column.key}`);
        return aggregate === "last" ? stats?.final : stats?.[aggregate];
      });
      const counted = values.filter((value) => typeof value === "number" && Number.isFinite(value)).length;
      return (
        <span title={`the ${grouping.line} of ${counted} of ${members.length} runs`}>
          {formatNumber(groupValue(values, grouping.line))}
        </span>
      );
    }
    const texts = new Set(
      members.map((run) => formatValue((column.source === "config" ? run._flatConfig : run._flatSystemMetadata)?.[column.key])),
    );
    return texts.size === 1 ? (
      [...texts][0]
    ) : (
      <span class="muted" title={`${texts.size} different values`}>
        {texts.size} values
      </span>
    );
  };
  const groupRow = (group: Group, members: RunListItem[]) => {
    const open = unfolded.has(group.label);
    const fold = () => {
      const next = new Set(unfolded);
      if (open) next.delete(group.label);
      else next.add(group.label);
      setUnfolded(next);
    };
    return (
      <tr key={`group ${group.label}`} class="group-row" data-group={group.label}>
        <td class="pin pin-select">
          <button type="button" class="icon" aria-expanded={open} aria-label={`${open ? "Fold" : "Unfold"} ${group.label}`} onClick={fold}>
            {open ? "▾" : "▸"}
          </button>
        </td>
        <td class="pin pin-identity" />
        <td class="pin pin-status">
          <span data-testid="group-size">{members.length} runs</span>
        </td>
        <td class="pinned">
          <span class="truncate run-name" title={group.label}>
            {group.label}
          </span>
        </td>
        <td />
        <td />
        <td />
        <td />
        {columns.map((column) => (
          <td key={columnId(column)} class="number">
            {groupCell(members, column)}
          </td>
        ))}
      </tr>
    );
  };
  // Grouped, each group of the page is one folded row with its values; unfolded, its runs follow.
  const groupedRows = (list: RunListItem[]) => {
    const byId = new Map(list.map((run) => [run.id, run]));
    return groupRuns(
      list.map((run) => ({ id: run.id, tags: run.tags, config: run._flatConfig })),
      grouping.keys,
    ).flatMap((group) => {
      const members = group.runIds.map((id) => byId.get(id)!);
      return [groupRow(group, members), ...(unfolded.has(group.label) ? members.map(runRow) : [])];
    });
  };

  return (
    <RunColors.Provider value={colorOf}>
      <section class="runs-page">
        <PageTitle title={projectName}>
          <nav class="actions" aria-label="Project">
            <SavedViews
              projectName={projectName}
              query={{ search, tags, status, sort, filter: writtenFilter, brush: query.get("brush") ?? "" }}
            />
            <Link href={leaderboardPath(projectName)}>Leaderboard</Link>
            <Link href={trashPath(projectName)}>Trash</Link>
            <Link href={settingsPath(projectName)} title="Alert rules, destinations and alert history">
              Settings
            </Link>
            <button
              type="button"
              disabled={selected.size < 1}
              onClick={() => navigate(comparePath(projectName, [...selected.keys()]))}
              data-testid="compare-selected"
            >
              Compare {selected.size > 0 ? `(${selected.size})` : ""}
            </button>
            <button type="button" class="danger" disabled={selected.size < 1} onClick={deleteTicked} data-testid="delete-selected">
              Delete {selected.size > 0 ? `(${selected.size})` : ""}
            </button>
            <label title="Draw only the ticked runs in the charts">
              <input
                type="checkbox"
                data-testid="ticked-only"
                checked={tickedOnly}
                disabled={selected.size === 0 && !tickedOnly}
                onChange={(event) => setTickedOnly(event.currentTarget.checked)}
              />
              charts: ticked runs only
            </label>
            <button
              type="button"
              data-testid="toggle-charts"
              aria-pressed={!split.chartsHidden}
              onClick={() => setSplit({ ...split, chartsHidden: !split.chartsHidden })}
            >
              {split.chartsHidden ? "Show charts" : "Hide charts"}
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
        <FilterBuilder projectName={projectName} filter={writtenFilter} onApply={(text) => setQuery({ filter: text, offset: undefined })} />
        <details
          class="panel"
          open={analysisOpen}
          onToggle={(event) => setAnalysisOpen(event.currentTarget.open)}
          data-testid="analysis-section"
        >
          <summary>
            Analysis: parallel coordinates, scatter, parameter importance
            {brushes.length > 0
              ? ` (${brushes.length} ${brushes.length === 1 ? "brush narrows" : "brushes narrow"} the table and charts)`
              : ""}
          </summary>
          {analysisOpen && (
            <Analysis
              projectName={projectName}
              selection={{ search, tags, status, sort, filter: writtenFilter }}
              brushes={brushes}
              onBrushes={(next) => setQuery({ brush: next.length > 0 ? JSON.stringify(next) : undefined, offset: undefined })}
            />
          )}
        </details>
        <ColumnPicker projectName={projectName} columns={columns} chosen={chosenColumns !== null} onChange={setColumns} />

        <ErrorNote error={deleteFailure ?? runs.error ?? summaries.error ?? metricNames.error} />
        <div
          class={split.chartsHidden ? "runs-layout charts-hidden" : "runs-layout"}
          style={{ "--table-share": `${Math.round(split.tableShare * 100)}%` }}
        >
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
                          const key = sortKey(header.id, header.column);
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
                                <button type="button" class="sort" onClick={() => toggleSort(header.id, header.column)}>
                                  {header.label} {direction === "ascending" ? "▲" : direction === "descending" ? "▼" : ""}
                                </button>
                              ) : (
                                header.label
                              )}
                              {header.column?.source === "summary" && (
                                <select
                                  class="aggregate"
                                  aria-label={`${header.label}: value shown`}
                                  value={header.column.aggregate ?? "last"}
                                  onChange={(event) =>
                                    setAggregate(
                                      header.column!,
                                      AGGREGATES.find((choice) => choice === event.currentTarget.value) ?? "last",
                                    )
                                  }
                                >
                                  {AGGREGATES.map((choice) => (
                                    <option key={choice} value={choice}>
                                      {choice}
                                    </option>
                                  ))}
                                </select>
                              )}
                            </th>
                          );
                        })}
                      </tr>
                    </thead>
                    <tbody>{grouped ? groupedRows(runs.data.runs) : runs.data.runs.map(runRow)}</tbody>
                  </table>
                </div>
                {runs.data.runs.length === 0 && <p class="muted">No runs match.</p>}
                <Pager
                  offset={offset}
                  limit={pageSize}
                  total={runs.data.total}
                  label="runs"
                  onOffset={(next) => setQuery({ offset: next || undefined })}
                />
              </>
            )}
          </div>
          {!split.chartsHidden && <Splitter split={split} onSplit={setSplit} />}
          <div class="workspace-pane" hidden={split.chartsHidden}>
            {/* Stacked below the table, the charts wait for its first page (workspace.tsx says why). */}
            {!split.chartsHidden && (
              <Workspace
                onlyRuns={tickedOnly && selected.size > 0 ? tickedRuns : undefined}
                projectName={projectName}
                selection={{ search, tags, status, sort, filter }}
                tableReady={Boolean(runs.data || runs.error)}
                onRuns={setChartRunIds}
              />
            )}
          </div>
        </div>
      </section>
    </RunColors.Provider>
  );
}
