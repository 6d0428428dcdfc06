import { formatDisplayId } from "../../domain/ids.js";
import { newMlflowRunId } from "../../domain/mlflow/ids.js";
import { checkProjectTakesRuns, forkedAttributes } from "../../domain/runs.js";
import type { Actor, CreateRunInput, Run } from "../store.js";
import { SELECT_RUN, toJsonText, toRun, type RunRow } from "../rows.js";
import type { Statements } from "./db.js";
import { getOrCreateProjectRow } from "./projects.js";
import { insertStatusEvent } from "./status.js";

export function getRun(s: Statements, orgId: string, runId: number): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.id = ?`).get(orgId, runId) as RunRow | undefined;
  return row && toRun(row);
}

export function getRunProjectName(s: Statements, orgId: string, runId: number): string | undefined {
  const row = s.get("SELECT p.name FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.org_id = ? AND r.id = ?").get(orgId, runId) as
    | { name: string }
    | undefined;
  return row?.name;
}

/** Runs forked from a run, oldest first. */
export function listForks(s: Statements, orgId: string, runId: number): Run[] {
  const rows = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.forked_from_run_id = ? ORDER BY r.id`).all(orgId, runId) as RunRow[];
  return rows.map(toRun);
}

export function getRunByExternalId(s: Statements, orgId: string, projectName: string, externalId: string): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND p.name = ? AND r.external_id = ?`).get(orgId, projectName, externalId) as
    | RunRow
    | undefined;
  return row && toRun(row);
}

export function listRunsByDisplayId(s: Statements, orgId: string, prefix: string, number: number, projectName?: string): Run[] {
  const displayId = formatDisplayId(prefix, number);
  const rows =
    projectName === undefined
      ? s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.display_id = ? ORDER BY r.id`).all(orgId, displayId)
      : s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.display_id = ? AND p.name = ? ORDER BY r.id`).all(orgId, displayId, projectName);
  return (rows as RunRow[]).map(toRun);
}

/** Must run inside a write transaction (see Store.createRun). */
export function createRun(s: Statements, orgId: string, input: CreateRunInput, actor: Actor): { run: Run; resumed: boolean } {
  const project = getOrCreateProjectRow(s, orgId, input.projectName, input.now);
  checkProjectTakesRuns(project);
  if (input.externalId !== undefined) {
    const existing = s.get("SELECT id FROM runs WHERE project_id = ? AND external_id = ?").get(project.id, input.externalId) as
      | { id: number }
      | undefined;
    if (existing) return { run: resumeRun(s, orgId, existing.id, input.now, actor)!, resumed: true };
  }

  let config = input.config ?? null;
  let tags = input.tags;
  if (input.fork) {
    const parent = getRun(s, orgId, input.fork.runId);
    const child = { projectId: project.id, projectName: input.projectName, config, tags };
    ({ config, tags } = forkedAttributes(input.fork, parent, parent ? ownLastStep(s, parent.id) : null, child));
  }

  const number = project.next_number;
  s.get("UPDATE projects SET next_number = next_number + 1, updated_at = ? WHERE id = ?").run(input.now, project.id);
  const createdAt = input.createdAt ?? input.now;
  const result = s
    .get(
      `INSERT INTO runs (org_id, project_id, name, number, display_id, external_id, status, tags, config, system_metadata,
                         logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step, mlflow_id, mlflow_tags)
       VALUES (?, ?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      orgId,
      project.id,
      input.name,
      number,
      formatDisplayId(project.run_prefix, number),
      input.externalId ?? null,
      JSON.stringify(tags),
      toJsonText(config),
      toJsonText(input.systemMetadata),
      toJsonText(input.loggerSettings),
      createdAt,
      input.updatedAt ?? createdAt,
      input.now,
      input.fork?.runId ?? null,
      input.fork?.step ?? null,
      newMlflowRunId(),
      JSON.stringify(input.mlflowTags ?? []),
    );
  const runId = Number(result.lastInsertRowid);
  insertStatusEvent(s, { runId, fromStatus: null, toStatus: "RUNNING", source: "api", metadata: null, actor, createdAt });
  return { run: getRun(s, orgId, runId)!, resumed: false };
}

/** The run's own last logged step over all its metrics; null when it has no points. */
function ownLastStep(s: Statements, runId: number): number | null {
  return (s.get("SELECT max(last_step) AS last FROM metrics WHERE run_id = ?").get(runId) as { last: number | null }).last;
}

/** Must run inside a write transaction (see Store.resumeRun). */
export function resumeRun(s: Statements, orgId: string, runId: number, now: number, actor: Actor): Run | undefined {
  const run = getRun(s, orgId, runId);
  if (!run) return undefined;
  s.get("UPDATE runs SET heartbeat_at = ? WHERE id = ?").run(now, runId);
  if (run.status === "RUNNING") return { ...run, heartbeatAt: now };
  s.get("UPDATE runs SET status = 'RUNNING', status_updated = ?, updated_at = ? WHERE id = ?").run(now, now, runId);
  insertStatusEvent(s, { runId, fromStatus: run.status, toStatus: "RUNNING", source: "resume", metadata: null, actor, createdAt: now });
  return getRun(s, orgId, runId);
}
