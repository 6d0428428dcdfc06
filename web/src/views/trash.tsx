// The trash: deleted runs and projects of the organization (or of one project), each with the date
// the purge removes it, and Restore (docs/api.md, "Deletion and retention").

import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, StatusBadge, TimeAgo } from "../components/common.tsx";
import { useServerState } from "../hooks.ts";
import { Link, projectPath } from "../router.tsx";
import type { TrashedRun } from "../types.ts";

const purgeDate = (iso: string) => new Date(iso).toLocaleDateString("en-CA");

export function TrashPage({ projectName }: { projectName?: string }) {
  const trash = useServerState(["trash", projectName], () => api.trash(projectName));
  const [ticked, setTicked] = useState<ReadonlySet<number>>(new Set());
  const [failure, setFailure] = useState<string>();
  const act = async (work: () => Promise<unknown>) => {
    setFailure(undefined);
    try {
      await work();
      setTicked(new Set());
      trash.reload();
    } catch (error) {
      setFailure((error as Error).message);
    }
  };
  const restoreRuns = (runIds: number[]) => act(() => api.restoreRuns(runIds));
  const toggle = (run: TrashedRun) => {
    const next = new Set(ticked);
    if (next.has(run.runId)) next.delete(run.runId);
    else next.add(run.runId);
    setTicked(next);
  };
  const data = trash.data;
  return (
    <section data-testid="trash">
      <PageTitle title={projectName === undefined ? "Trash" : `Trash · ${projectName}`}>
        <nav class="actions" aria-label="Trash">
          <button type="button" data-testid="restore-selected" disabled={ticked.size === 0} onClick={() => restoreRuns([...ticked])}>
            Restore {ticked.size > 0 ? `(${ticked.size})` : ""}
          </button>
        </nav>
      </PageTitle>
      <p class="muted">Deleted runs and projects are restorable until their purge date; then every row and file of them is removed.</p>
      <ErrorNote error={trash.error ?? failure} />
      {trash.loading && !data && <Loading what="the trash" />}
      {data && data.projects.length > 0 && (
        <table class="data-table" data-testid="trash-projects">
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col" class="number">
                Runs
              </th>
              <th scope="col">Deleted</th>
              <th scope="col">Purged on</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {data.projects.map((project) => (
              <tr key={project.projectName}>
                <td>{project.projectName}</td>
                <td class="number">{project.runCount.toLocaleString("en-US")}</td>
                <td>
                  <TimeAgo iso={project.deletedAt} />
                </td>
                <td>{purgeDate(project.purgeAfter)}</td>
                <td>
                  <button type="button" onClick={() => act(() => api.restoreProject(project.projectName))}>
                    Restore
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && data.runs.length === 0 && data.projects.length === 0 && <p class="muted">The trash is empty.</p>}
      {data && data.runs.length > 0 && (
        <table class="data-table" data-testid="trash-runs">
          <thead>
            <tr>
              <th scope="col" aria-label="Select" />
              <th scope="col">Run</th>
              <th scope="col">Project</th>
              <th scope="col">Status</th>
              <th scope="col">Deleted</th>
              <th scope="col">Purged on</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {data.runs.map((run) => (
              <tr key={run.runId} data-testid="trash-run">
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Select ${run.name}`}
                    checked={ticked.has(run.runId)}
                    disabled={run.projectDeleted}
                    onChange={() => toggle(run)}
                  />
                </td>
                <td>
                  <span class="mono">{run.displayId}</span> {run.name}
                </td>
                <td>{run.projectDeleted ? run.projectName : <Link href={projectPath(run.projectName)}>{run.projectName}</Link>}</td>
                <td>
                  <StatusBadge status={run.status} />
                </td>
                <td>
                  <TimeAgo iso={run.deletedAt} />
                </td>
                <td data-testid="purge-date">{purgeDate(run.purgeAfter)}</td>
                <td>
                  {run.projectDeleted ? (
                    <span class="muted">with its project</span>
                  ) : (
                    <button type="button" onClick={() => act(() => api.restoreRuns([run.runId]))}>
                      Restore
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && data.total > data.runs.length && (
        <p class="muted">
          {data.runs.length.toLocaleString("en-US")} of {data.total.toLocaleString("en-US")} deleted runs shown.
        </p>
      )}
      {projectName !== undefined && (
        <p>
          <Link href={projectPath(projectName)}>Back to {projectName}</Link>
        </p>
      )}
    </section>
  );
}
