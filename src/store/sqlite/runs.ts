import { DomainError, invalidInput } from "../../domain/errors.js";
import { formatDisplayId } from "../../domain/ids.js";
import { deepMerge, type Json } from "../../domain/merge.js";
import type { RunStatus } from "../../domain/status.js";
import type { Actor, CreateRunInput, Run } from "../store.js";
import { fromJsonText, toJsonText, type Statements } from "./db.js";
import { getOrCreateProjectRow } from "./projects.js";
import { insertStatusEvent } from "./status.js";

export interface RunRow {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  number: number;
  display_id: string;
  external_id: string | null;
  status: RunStatus;
  tags: string;
  notes: string | null;
  config: string | null;
  system_metadata: string | null;
  logger_settings: string | null;
  status_metadata: string | null;
  created_at: number;
  updated_at: number;
  status_updated: number | null;
  heartbeat_at: number;
  forked_from_run_id: number | null;
  fork_step: number | null;
}

export const SELECT_RUN = `
  SELECT r.id, r.project_id, p.name AS project_name, r.name, r.number, r.display_id, r.external_id, r.status,
         r.tags, r.notes, r.config, r.system_metadata, r.logger_settings, r.status_metadata, r.created_at,
         r.updated_at, r.status_updated, r.heartbeat_at, r.forked_from_run_id, r.fork_step
  FROM runs r JOIN projects p ON p.id = r.project_id`;

export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    projectId: row.project_id,
    projectName: row.project_name,
    name: row.name,
    number: row.number,
    displayId: row.display_id,
    externalId: row.external_id,
    status: row.status,
    tags: JSON.parse(row.tags) as string[],
    notes: row.notes,
    config: fromJsonText<Json>(row.config),
    systemMetadata: fromJsonText<Json>(row.system_metadata),
    loggerSettings: fromJsonText<Json>(row.logger_settings),
    statusMetadata: fromJsonText<Json>(row.status_metadata),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    statusUpdated: row.status_updated,
    heartbeatAt: row.heartbeat_at,
    forkedFromRunId: row.forked_from_run_id,
    forkStep: row.fork_step,
  };
}

export function getRun(s: Statements, orgId: string, runId: number): Run | undefined {
  const row = s.get(`${SELECT_RUN} WHERE r.org_id = ? AND r.id = ?`).get(orgId, runId) as RunRow | undefined;
  return row && toRun(row);
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
    if (!parent || parent.projectId !== project.id) {
      throw new DomainError("RUN_NOT_FOUND", `forkRunId: run '${input.fork.runId}' not found in project '${input.projectName}'`);
    }
    const lastStep = lineageLastStep(s, parent);
    if (input.fork.step > lastStep) {
      throw invalidInput(`forkStep: ${input.fork.step} is past the last step of run ${parent.id} (${lastStep})`);
    }
    if (input.fork.inheritConfig && parent.config !== null) config = deepMerge(parent.config, config ?? {});
    if (input.fork.inheritTags) tags = [...new Set([...parent.tags, ...tags])];
  }

  const number = project.next_number;
  s.get("UPDATE projects SET next_number = next_number + 1, updated_at = ? WHERE id = ?").run(input.now, project.id);
  const createdAt = input.createdAt ?? input.now;
  const result = s
    .get(
      `INSERT INTO runs (org_id, project_id, name, number, display_id, external_id, status, tags, config, system_metadata,
                         logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step)
       VALUES (?, ?, ?, ?, ?, ?, 'RUNNING', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    );
  const runId = Number(result.lastInsertRowid);
  insertStatusEvent(s, { runId, fromStatus: null, toStatus: "RUNNING", source: "api", metadata: null, actor, createdAt });
  return { run: getRun(s, orgId, runId)!, resumed: false };
}

/**
 * The highest step a child may fork at: the run's own last logged step, or the step it inherits
 * up to when it is itself a fork. A run without any points can be forked at step 0 only.
 */
function lineageLastStep(s: Statements, run: Run): number {
  const own = s.get("SELECT max(last_step) AS last FROM metrics WHERE run_id = ?").get(run.id) as { last: number | null };
  return Math.max(own.last ?? 0, run.forkStep ?? 0);
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
