// The project workspace (docs/decisions.md, "Web UI: the project workspace"): one panel per metric across the runs
// of the table's current selection — the runs matching its search and filters, in its order, up to
// a cap the user raises (20 → 50 → 100 → 200) — grouped in sections by log group (train, val, then
// the rest), sections collapsible, panels searchable and movable within their section, added
// panels with several metrics. Hidden
// runs (the table's eye toggles) are left out of every panel. The layout and the hidden runs are
// kept in this browser, per project (stored.ts).

import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useInterval, useMediaQuery, useServerState } from "../../hooks.ts";
import { groupRuns, TAGS_KEY } from "../../lib/grouping.ts";
import {
  addCustomPanel,
  CUSTOM_SECTION,
  movePanel,
  nextCap,
  optionsOf,
  panelNeeds,
  SIDE_BY_SIDE,
  removeCustomPanel,
  type Selection,
  toggleCollapsed,
  withOptions,
  workspaceSections,
} from "../../lib/workspace.ts";
import type { RunListItem, RunListQuery } from "../../types.ts";
import { ErrorNote, Loading, MetricSearch } from "../common.tsx";
import { GroupingControl } from "./grouping-control.tsx";
import "./workspace.css";
import { useWorkspaceSeries } from "./batch-feed.ts";
import { lazy } from "../lazy.tsx";
import { WorkspacePanel } from "./panel.tsx";
import { useHiddenRuns, useLayout } from "./stored.ts";

/**
 * The run list's parameters that attach the field values of `columns` and of the config keys a
 * grouping reads (none for tags alone).
 */
export function fieldValuesFor(
  groupKeys: readonly string[],
  columns: readonly { source: string; key: string }[] = [],
): { includeFieldValues?: string; visibleColumns?: string } {
  const wanted = [
    ...columns,
    ...groupKeys.filter((key) => key !== TAGS_KEY).map((key) => ({ source: "config", key: key.slice("config.".length) })),
  ];
  return wanted.length > 0 ? { includeFieldValues: "true", visibleColumns: JSON.stringify(wanted) } : {};
}

/** The first `cap` runs of a selection, in pages of the run list's most (200), asked for together. */
async function listRunsUpTo(query: Omit<RunListQuery, "limit" | "offset">, cap: number): Promise<{ runs: RunListItem[]; total: number }> {
  const offsets = Array.from({ length: Math.ceil(cap / RUN_LIST_PAGE) }, (_, page) => page * RUN_LIST_PAGE);
  const pages = await Promise.all(
    offsets.map((offset) => api.listRuns({ ...query, limit: Math.min(RUN_LIST_PAGE, cap - offset), offset })),
  );
  return { runs: pages.flatMap((page) => page.runs), total: pages[0]!.total };
}
const RUN_LIST_PAGE = 200;

const WorkspaceLogged = lazy("the logged data", () => import("./logged.tsx").then((module) => module.WorkspaceLogged));
/** How often the workspace refreshes while a shown run is RUNNING. */
const LIVE_INTERVAL_MS = 5000;

function AddPanel({ metricNames, onAdd }: { metricNames: readonly string[]; onAdd: (names: string[]) => void }) {
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState<string[]>([]);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)} data-testid="add-panel">
        Add panel
      </button>
    );
  // Ticked one by one, no modifier keys (a <select multiple> needed Ctrl-click to take a second metric).
  const toggle = (name: string, on: boolean) => setChosen(on ? [...chosen, name] : chosen.filter((other) => other !== name));
  return (
    <span class="add-panel">
      <fieldset class="add-panel-metrics" data-testid="add-panel-metrics">
        <legend>Metrics of the new panel</legend>
        {metricNames.map((name) => (
          <label key={name}>
            <input type="checkbox" checked={chosen.includes(name)} onChange={(event) => toggle(name, event.currentTarget.checked)} />
            {name}
          </label>
        ))}
      </fieldset>
      <button
        type="button"
        disabled={chosen.length === 0}
        data-testid="add-panel-confirm"
        onClick={() => {
          onAdd(chosen);
          setChosen([]);
          setOpen(false);
        }}
      >
        Add {chosen.length > 0 ? `(${chosen.length} metrics)` : ""}
      </button>
      <button type="button" class="link" onClick={() => setOpen(false)}>
        cancel
      </button>
    </span>
  );
}

export function Workspace({
  projectName,
  selection,
  tableReady,
  onRuns,
  onlyRuns,
}: {
  projectName: string;
  selection: Selection;
  /** Whether the table's first page is shown: stacked below the table, panels wait for it (see views/runs.tsx). */
  tableReady: boolean;
  /** Hears the IDs of the runs the workspace draws, hidden ones too, as they change (the page colours them as a set). */
  onRuns?: (runIds: readonly number[]) => void;
  /** Runs to draw instead of the selection's (the table's ticked runs). */
  onlyRuns?: readonly RunListItem[];
}) {
  const [layout, setLayout] = useLayout(projectName);
  const { hidden, showAll } = useHiddenRuns(projectName);
  const [search, setSearch] = useState("");
  const cap = layout.cap;
  // The selected runs, then their metric names, in one load: asked for as soon as the runs arrive,
  // not after the page has drawn them (the runs table renders meanwhile).
  const onlyIds = onlyRuns?.map((run) => run.id).join(",");
  const grouping = layout.grouping;
  const groupFields = fieldValuesFor(grouping.keys);
  const loaded = useServerState(
    [
      "workspaceRuns",
      projectName,
      selection.search,
      selection.tags,
      selection.status,
      selection.sort,
      selection.filter,
      cap,
      onlyIds,
      groupFields.visibleColumns,
    ],
    async () => {
      const runs = onlyRuns
        ? { runs: [...onlyRuns], total: onlyRuns.length }
        : await listRunsUpTo({ projectName, ...selection, ...groupFields }, cap);
      const ids = runs.runs.map((run) => run.id);
      const names = ids.length > 0 ? await api.metricNames(projectName, ids) : { projectName, metricNames: [] };
      return { runs, metricNames: names.metricNames };
    },
  );
  const selected = loaded.data?.runs.runs ?? [];
  const selectedIds = selected.map((run) => run.id).join(",");
  useEffect(() => onRuns?.(selectedIds === "" ? [] : selectedIds.split(",").map(Number)), [selectedIds]);
  // The same array until the runs or the hidden set change: panels redraw only then.
  const shown = useMemo(() => selected.filter((run) => !hidden.has(run.id)), [loaded.data, hidden]);
  const groups = useMemo(
    () =>
      grouping.keys.length > 0
        ? groupRuns(
            shown.map((run) => ({ id: run.id, tags: run.tags, config: run._flatConfig })),
            grouping.keys,
          )
        : undefined,
    [shown, grouping.keys.join("\n")],
  );
  const live = shown.filter((run) => run.status === "RUNNING").map((run) => run.id);
  const [liveTick, setLiveTick] = useState(0);
  useInterval(
    () => {
      setLiveTick((tick) => tick + 1);
      loaded.reload(); // a live run may also log new metrics
    },
    LIVE_INTERVAL_MS,
    live.length > 0,
  );
  const metricNames = loaded.data?.metricNames ?? [];
  const sections = workspaceSections(metricNames, layout, search);
  const besideTable = useMediaQuery(SIDE_BY_SIDE);
  // Beside the table the first open section's first panel is in view from the first frame.
  const firstPanel = besideTable ? sections.find(([section]) => !layout.collapsed.includes(section))?.[1][0] : undefined;
  const feed = useWorkspaceSeries(
    projectName,
    shown.map((run) => run.id),
    sections.flatMap(([, panels]) => panels.map((panel) => panel.id)),
    firstPanel ? panelNeeds(firstPanel, optionsOf(layout, firstPanel.id)) : [],
    live,
    liveTick,
  );
  const total = loaded.data?.runs.total ?? 0;
  const more = nextCap(cap);
  const hiddenHere = selected.length - shown.length;

  // Stacked, the charts wait for the table's first page (loading their runs and names meanwhile):
  // shown before it, they would sit on screen for a moment, fetch every panel there, then jump below
  // the table as it fills. Beside the table nothing moves, so they show and fetch at once.
  if (!tableReady && !besideTable) return null;
  return (
    <section class="workspace" aria-label="Workspace" data-testid="workspace">
      <h2>Charts</h2>
      <div class="toolbar workspace-toolbar">
        <MetricSearch count={metricNames.length} value={search} onChange={setSearch} testId="workspace-search" />
        <span data-testid="workspace-count">
          {onlyRuns ? `showing the ${selected.length} ticked runs` : `showing ${selected.length} of ${total} runs`}
          {hiddenHere > 0 && (
            <>
              {" "}
              ({hiddenHere} hidden,{" "}
              <button type="button" class="link" onClick={showAll}>
                show all
              </button>
              )
            </>
          )}
        </span>
        {more !== null && total > selected.length && (
          <button type="button" onClick={() => setLayout({ ...layout, cap: more })} data-testid="raise-cap">
            Show up to {more}
          </button>
        )}
        <AddPanel metricNames={metricNames} onAdd={(logNames) => setLayout(addCustomPanel(layout, logNames))} />
        <GroupingControl
          projectName={projectName}
          selection={selection}
          grouping={grouping}
          onChange={(next) => setLayout({ ...layout, grouping: next })}
        />
        {groups && (
          <span data-testid="group-count">
            {groups.length} {groups.length === 1 ? "group" : "groups"}
          </span>
        )}
      </div>
      <ErrorNote error={loaded.error ?? feed.error} />
      {loaded.loading && !loaded.data ? <Loading what="charts" /> : null}
      {loaded.data && selected.length === 0 && (
        <p class="muted" data-testid="workspace-no-runs">
          No runs match: nothing to chart.
        </p>
      )}
      {loaded.data && selected.length > 0 && metricNames.length === 0 && <p class="muted">The selected runs have no metrics yet.</p>}
      {loaded.data && metricNames.length > 0 && sections.length === 0 && <p class="muted">No metric matches “{search}”.</p>}
      {sections.map(([section, panels]) => {
        const collapsed = layout.collapsed.includes(section);
        return (
          <details
            class="chart-group"
            open={!collapsed}
            key={section}
            data-section={section}
            onToggle={(event) => {
              if (event.currentTarget.open === collapsed) setLayout(toggleCollapsed(layout, section));
            }}
          >
            <summary>
              {section === "" ? "(no group)" : section} <span class="muted">{panels.length}</span>
            </summary>
            {!collapsed && (
              <div class="chart-grid">
                {panels.map((panel, index) => (
                  <WorkspacePanel
                    key={panel.id}
                    projectName={projectName}
                    panel={panel}
                    runs={shown}
                    groups={groups}
                    grouping={grouping}
                    options={optionsOf(layout, panel.id)}
                    metricNames={metricNames}
                    seriesOf={feed.get}
                    stampOf={feed.stampOf}
                    onVisible={feed.setVisible}
                    onOptions={(options) => setLayout(withOptions(layout, panel.id, options))}
                    onMove={(delta) => setLayout(movePanel(layout, metricNames, search, panel.id, delta))}
                    canMove={[index > 0, index < panels.length - 1]}
                    onRemove={section === CUSTOM_SECTION ? () => setLayout(removeCustomPanel(layout, panel.id)) : undefined}
                  />
                ))}
              </div>
            )}
          </details>
        );
      })}
      <WorkspaceLogged projectName={projectName} runs={shown} />
    </section>
  );
}
