// The run page (a run's `url`): header, then tabs for charts, logs, what else the run logged (histograms,
// tables, text, media, other logs), files, config, history, model graph, models, lineage.

import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, ProjectCrumb } from "../components/common.tsx";
import { RunCharts } from "../components/run/charts.tsx";
import { RunFiles } from "../components/run/files.tsx";
import { RunHeader } from "../components/run/header.tsx";
import { Lineage } from "../components/run/lineage.tsx";
import { lazy } from "../components/lazy.tsx";
import { type LOGGED_TABS, loggedTabsOf } from "../lib/logged-types.ts";
import { RunLogs } from "../components/run/logs.tsx";
import { ModelGraphTree } from "../components/run/model-graph.tsx";
import { RunAlerts } from "../components/run/alerts.tsx";
import { RunModels } from "../components/run/models.tsx";
import { StatusHistory } from "../components/run/status-history.tsx";
import { JsonTree } from "../components/json-tree.tsx";
import { useInterval, useServerState } from "../hooks.ts";
import { navigate, projectPath, setQuery, useLocation } from "../router.tsx";

const RunLogged = lazy("the logged data", () => import("../components/run/logged.tsx").then((module) => module.RunLogged));
/** How often a RUNNING run's page asks for what is new. */
const LIVE_INTERVAL_MS = 3000;

const TABS = [
  ["charts", "Charts"],
  ["logs", "Logs"],
  ["files", "Files"],
  ["config", "Config"],
  ["history", "Status history"],
  ["model", "Model graph"],
  ["models", "Models"],
  ["alerts", "Alerts"],
  ["lineage", "Lineage"],
] as const;
type Tab = (typeof TABS)[number][0] | (typeof LOGGED_TABS)[number]["id"];

export function RunPage({ projectName, runId }: { projectName: string; runId: number }) {
  const { query } = useLocation();
  const ref = { projectName, runId };
  const run = useServerState(["run", runId], () => api.run(runId));
  // Statistics feed the header's divergence mark and the charts (their new metrics and new steps).
  const statistics = useServerState(["statistics", projectName, runId], () => api.statistics(ref));
  const [liveTick, setLiveTick] = useState(0);
  const [deleteFailure, setDeleteFailure] = useState<string>();
  const live = run.data?.status === "RUNNING";
  useInterval(
    () => {
      setLiveTick((tick) => tick + 1);
      run.reload();
      statistics.reload();
    },
    LIVE_INTERVAL_MS,
    live,
  );

  // To the trash, restorable there until its purge date; the project's page is shown after.
  const deleteRun = async () => {
    if (!window.confirm("Delete this run? It moves to the trash, restorable until it is purged.")) return;
    try {
      await api.deleteRuns([runId]);
      navigate(projectPath(projectName));
    } catch (error) {
      setDeleteFailure((error as Error).message);
    }
  };

  if (run.error) return <ErrorNote error={run.error} />;
  if (!run.data) return <Loading what="run" />;
  const details = run.data;
  // Histograms, tables, text and media follow Logs when the run logged them (components/run/logged.tsx).
  const loggedTabs = loggedTabsOf(details.logNames);
  const tabs: (readonly [Tab, string])[] = [
    ...TABS.slice(0, 2),
    ...loggedTabs.map((entry) => [entry.id, entry.label] as const),
    ...TABS.slice(2),
  ];
  const tab = tabs.find(([id]) => id === query.get("tab"))?.[0] ?? "charts";
  const loggedTab = loggedTabs.find((entry) => entry.id === tab);
  const showTab = (id: Tab) => setQuery({ tab: id === "charts" ? undefined : id });
  // Arrow keys move between tabs, as in every tab list (WAI-ARIA authoring practices).
  const onTabKey = (event: KeyboardEvent) => {
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    const index = (tabs.findIndex(([id]) => id === tab) + step + tabs.length) % tabs.length;
    showTab(tabs[index]![0]);
    requestAnimationFrame(() => (document.querySelector("[role=tab][aria-selected=true]") as HTMLElement | null)?.focus());
  };

  return (
    <section>
      <ProjectCrumb projectName={projectName} />
      <PageTitle title={details.name}>
        <nav class="actions" aria-label="Run">
          <button type="button" class="danger" data-testid="delete-run" onClick={deleteRun}>
            Delete run
          </button>
        </nav>
      </PageTitle>
      <ErrorNote error={deleteFailure} />
      <RunHeader run={details} metrics={statistics.data?.metrics} onSaved={run.reload} live={live} />
      <nav class="tabs" aria-label="Run sections" onKeyDown={onTabKey}>
        {tabs.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            tabIndex={tab === id ? 0 : -1}
            class={tab === id ? "active" : ""}
            onClick={() => showTab(id)}
          >
            {label}
          </button>
        ))}
      </nav>
      <div role="tabpanel">
        {tab === "charts" && <RunCharts run={ref} statistics={statistics} forkStep={details.forkStep} />}
        {loggedTab && <RunLogged key={loggedTab.id} run={ref} logNames={details.logNames} tab={loggedTab} />}
        {tab === "logs" && <RunLogs run={ref} liveTick={liveTick} openAtEnd={details.status === "FAILED"} />}
        {tab === "files" && <RunFiles run={ref} />}
        {tab === "config" && (
          <div class="two-columns">
            <JsonTree title="Config" value={details.config} />
            <JsonTree title="System metadata" value={details.systemMetadata} />
          </div>
        )}
        {tab === "history" && <StatusHistory runId={runId} liveTick={liveTick} />}
        {tab === "model" && <ModelGraphTree runId={runId} />}
        {tab === "models" && <RunModels runId={runId} />}
        {tab === "alerts" && <RunAlerts projectName={projectName} runId={runId} liveTick={liveTick} />}
        {tab === "lineage" && <Lineage run={details} />}
      </div>
    </section>
  );
}
