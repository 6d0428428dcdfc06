// The workspace's sections for what the shown runs logged besides metrics: a panel per log name
// with each run's entry in its colour — media at a picked step (each run's latest file by then),
// histograms as each run's latest distribution, tables as each run's latest table, text as each
// run's latest values, and any other type listed with what is stored under it. Bounded: the first
// LOGGED_RUNS shown runs, each read for its newest entries only (logged/feed.ts), and only once
// the section comes near view.

import { useEffect, useMemo, useState } from "preact/hooks";
import { api, type RunRef } from "../../api.ts";
import { useMediaQuery, useServerState } from "../../hooks.ts";
import { parseHistogram } from "../../lib/histogram.ts";
import { atOrBefore, kindOf, type LoggedKind, stepsOf } from "../../lib/logged-types.ts";
import { runColor } from "../../lib/run-color.ts";
import { formatNumber } from "../../lib/format.ts";
import { SIDE_BY_SIDE } from "../../lib/workspace.ts";
import { Link, runPath } from "../../router.tsx";
import type { FileRecord, RunListItem } from "../../types.ts";
import { ErrorNote, Loading, StepPicker } from "../common.tsx";
import { LATEST_BOUNDS, type ReadBounds, readRows } from "../logged/feed.ts";
import { Distribution } from "../logged/histogram-view.tsx";
import { LoggedEntries } from "../logged/logged-card.tsx";
import { MediaFile } from "../logged/media.tsx";
import { TableOfRow } from "../logged/table-view.tsx";

/** Runs whose logged data the workspace reads (each costs a details read and a read per log name). */
export const LOGGED_RUNS = 10;
/** Text entries shown per run: its last few. */
const TEXT_LATEST: ReadBounds = { head: 5, chunks: 1, chunkRows: 5, maxBytes: 1024 * 1024 };

const SECTIONS: readonly { id: string; label: string; kinds: readonly LoggedKind[] }[] = [
  { id: "media", label: "Media", kinds: ["media"] },
  { id: "histograms", label: "Histograms", kinds: ["histogram"] },
  { id: "tables", label: "Tables", kinds: ["table"] },
  { id: "text", label: "Text", kinds: ["text"] },
  { id: "other-logs", label: "Other logs", kinds: ["file", "other"] },
];

interface NamedLog {
  logName: string;
  logType: string;
  kind: LoggedKind;
  runs: RunListItem[];
}

function RunLabel({ projectName, run, tab }: { projectName: string; run: RunListItem; tab?: string }) {
  return (
    <span class="logged-run-label">
      <span class="swatch" style={{ background: runColor(run.id) }} />
      <Link href={`${runPath(projectName, run.id)}${tab ? `?tab=${tab}` : ""}`}>{run.name}</Link>
    </span>
  );
}

/** Each run's files of one log name at a step picked across all of them: a run shows its latest file by then. */
function MediaPanel({ projectName, named }: { projectName: string; named: NamedLog }) {
  const files = useServerState(["workspaceMedia", projectName, named.logName, named.runs.map((run) => run.id).join(",")], () =>
    Promise.all(named.runs.map((run) => api.files({ projectName, runId: run.id }, named.logName).then((answer) => answer.files))),
  );
  const steps = useMemo(() => stepsOf(files.data?.flat() ?? []), [files.data]);
  const [index, setIndex] = useState<number | undefined>(undefined);
  if (files.error) return <ErrorNote error={files.error} />;
  if (!files.data) return <Loading what={named.logName} />;
  const current = Math.min(index ?? steps.length - 1, steps.length - 1);
  const step = steps[current];
  return (
    <>
      <StepPicker steps={steps} index={current} onIndex={setIndex} label={named.logName} />
      <div class="logged-runs media-runs">
        {named.runs.map((run, i) => {
          const own: FileRecord[] = files.data![i]!;
          const ownSteps = stepsOf(own);
          const at = step === undefined ? undefined : atOrBefore(ownSteps, step);
          const shown = at === undefined ? [] : own.filter((file) => file.step === ownSteps[at]);
          return (
            <div key={run.id} class="logged-run" data-run-id={run.id}>
              <RunLabel projectName={projectName} run={run} tab="media" />
              {shown.length === 0 ? (
                <p class="muted">{own.length === 0 ? "no file uploaded" : `nothing by step ${formatNumber(step)}`}</p>
              ) : (
                <>
                  {ownSteps[at!] !== step && <p class="muted">its latest by then: step {formatNumber(ownSteps[at!])}</p>}
                  {shown.map((file) => (
                    <MediaFile key={file.fileName} file={file} />
                  ))}
                </>
              )}
            </div>
          );
        })}
      </div>
    </>
  );
}

/** Each run's newest entry of a histogram or table log name. */
function LatestPanel({ projectName, named }: { projectName: string; named: NamedLog }) {
  const latest = useServerState(["workspaceLatest", projectName, named.logName, named.runs.map((run) => run.id).join(",")], () =>
    Promise.all(named.runs.map((run) => readRows({ projectName, runId: run.id }, named.logName, LATEST_BOUNDS))),
  );
  if (latest.error) return <ErrorNote error={latest.error} />;
  if (!latest.data) return <Loading what={named.logName} />;
  const tab = named.kind === "histogram" ? "histograms" : "tables";
  return (
    <div class="logged-runs">
      {named.runs.map((run, i) => {
        const row = latest.data![i]!.rows.at(-1);
        const parsed = row && named.kind === "histogram" ? parseHistogram(row.data) : undefined;
        return (
          <div key={run.id} class="logged-run" data-run-id={run.id}>
            <RunLabel projectName={projectName} run={run} tab={tab} />
            {!row && <p class="muted">nothing stored yet</p>}
            {row && <span class="muted"> step {formatNumber(row.step)}</span>}
            {parsed && !parsed.ok && (
              <p class="error" role="alert" data-testid="invalid-entries">
                The histogram at step {formatNumber(row!.step)} could not be read: {parsed.error}.
              </p>
            )}
            {parsed?.ok && (
              <Distribution
                histogram={parsed.value}
                color={runColor(run.id)}
                label={`Distribution of ${named.logName} in ${run.name} at step ${row!.step}`}
              />
            )}
            {row && named.kind === "table" && <TableOfRow row={row} label={`${named.logName} of ${run.name} at step ${row.step}`} />}
          </div>
        );
      })}
    </div>
  );
}

/** Text and other types: each run's latest entries, shown as the run page shows them. */
function EntriesPanel({ projectName, named }: { projectName: string; named: NamedLog }) {
  return (
    <div class="logged-runs">
      {named.runs.map((run) => (
        <div key={run.id} class="logged-run" data-run-id={run.id}>
          <RunLabel projectName={projectName} run={run} tab={named.kind === "text" ? "text" : "other-logs"} />
          <LoggedEntries
            run={{ projectName, runId: run.id } satisfies RunRef}
            logName={named.logName}
            kind={named.kind}
            bounds={TEXT_LATEST}
          />
        </div>
      ))}
    </div>
  );
}

/**
 * Whether the element came within 400 px of view once (then it stays true): the section below the
 * charts reads nothing while the first charts are fetched. Beside the runs table the workspace
 * pane is the root (it scrolls and clips; a margin applies to the root only), as in panel.tsx.
 */
function useNearOnce(element: HTMLElement | null, besideTable: boolean): boolean {
  const [near, setNear] = useState(false);
  useEffect(() => {
    if (near || !element) return;
    const pane = element.closest<HTMLElement>(".workspace-pane");
    const scrolls = pane !== null && getComputedStyle(pane).overflowY !== "visible";
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && setNear(true), {
      root: scrolls ? pane : null,
      rootMargin: "400px",
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [element, near, besideTable]);
  return near;
}

export function WorkspaceLogged({ projectName, runs }: { projectName: string; runs: readonly RunListItem[] }) {
  const considered = runs.slice(0, LOGGED_RUNS);
  const key = considered.map((run) => run.id).join(",");
  // A callback ref: the sentinel is drawn only once the runs have come, after the first effects ran.
  const [sentinel, setSentinel] = useState<HTMLElement | null>(null);
  const near = useNearOnce(sentinel, useMediaQuery(SIDE_BY_SIDE));
  // Each run read with its list item, so a reload in flight never pairs one run's names with another.
  const details = useServerState(
    ["workspaceLogNames", projectName, key],
    () => Promise.all(considered.map((run) => api.run(run.id).then((answer) => ({ run, logNames: answer.logNames })))),
    { enabled: near },
  );
  // Each non-metric log name once, with the runs that have it, in the runs' order.
  const named = useMemo(() => {
    const byName = new Map<string, NamedLog>();
    for (const { run, logNames } of details.data ?? []) {
      for (const entry of logNames) {
        const kind = kindOf(entry.logType);
        if (kind === "metric") continue;
        const known = byName.get(entry.logName) ?? { logName: entry.logName, logType: entry.logType, kind, runs: [] };
        known.runs.push(run);
        byName.set(entry.logName, known);
      }
    }
    return [...byName.values()].sort((a, b) => a.logName.localeCompare(b.logName));
  }, [details.data]);
  if (considered.length === 0) return null;
  if (!near) return <div ref={setSentinel} class="logged-sentinel" data-testid="workspace-logged-pending" />;
  if (details.error) return <ErrorNote error={details.error} />;
  if (!details.data) return <Loading what="logged data" />;
  if (named.length === 0) return null;
  return (
    <div class="workspace-logged" data-testid="workspace-logged">
      <h2>Logged data</h2>
      {runs.length > LOGGED_RUNS && (
        <p class="muted">
          Of the first {LOGGED_RUNS} of the {runs.length} shown runs; each run's page shows all of its own.
        </p>
      )}
      {SECTIONS.map((section) => {
        const members = named.filter((entry) => section.kinds.includes(entry.kind));
        if (members.length === 0) return null;
        return (
          <details class="chart-group" open key={section.id} data-section={`logged-${section.id}`}>
            <summary>
              {section.label} <span class="muted">{members.length}</span>
            </summary>
            <div class="logged-grid">
              {members.map((entry) => (
                <section key={entry.logName} class="logged-card" data-log-name={entry.logName}>
                  <h3 class="logged-title" title={entry.logName}>
                    {entry.logName} <span class="muted">{entry.logType}</span>
                  </h3>
                  {entry.kind === "media" && <MediaPanel projectName={projectName} named={entry} />}
                  {(entry.kind === "histogram" || entry.kind === "table") && <LatestPanel projectName={projectName} named={entry} />}
                  {entry.kind !== "media" && entry.kind !== "histogram" && entry.kind !== "table" && (
                    <EntriesPanel projectName={projectName} named={entry} />
                  )}
                </section>
              ))}
            </div>
          </details>
        );
      })}
    </div>
  );
}
