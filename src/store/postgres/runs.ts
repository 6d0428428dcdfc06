import { formatDisplayId } from "../../domain/ids.js";
import { newMlflowRunId } from "../../domain/mlflow/ids.js";
import { checkProjectTakesRuns, forkedAttributes } from "../../domain/runs.js";
import type { RunStatus } from "../../domain/status.js";
import type { Actor, CreateRunInput, Run } from "../store.js";
import { SELECT_RUN, toJsonText, toRun, type RunRow } from "../rows.js";
import { row, rows, run, type Sql } from "./db.js";
import { getOrCreateProjectRow, takeRunNumber } from "./projects.js";
import { insertStatusEvent } from "./status.js";

export async function getRun(sql: Sql, orgId: string, runId: number): Promise<Run | undefined> {
  const found = await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.id = $2`, [orgId, runId]);
  return found && toRun(found);
}

export async function getRunProjectName(sql: Sql, orgId: string, runId: number): Promise<string | undefined> {
  const found = await row<{ name: string }>(
    sql,
    "SELECT p.name FROM runs r JOIN projects p ON p.id = r.project_id WHERE r.org_id = $1 AND r.id = $2",
    [orgId, runId],
  );
  return found?.name;
}

/** Runs forked from a run, oldest first. */
export async function listForks(sql: Sql, orgId: string, runId: number): Promise<Run[]> {
  return (await rows<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.forked_from_run_id = $2 ORDER BY r.id`, [orgId, runId])).map(
    toRun,
  );
}

export async function getRunByExternalId(sql: Sql, orgId: string, projectName: string, externalId: string): Promise<Run | undefined> {
  const found = await row<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND p.name = $2 AND r.external_id = $3`, [
    orgId,
    projectName,
    externalId,
  ]);
  return found && toRun(found);
}

export async function listRunsByDisplayId(sql: Sql, orgId: string, prefix: string, number: number, projectName?: string): Promise<Run[]> {
  const displayId = formatDisplayId(prefix, number);
  const found =
    projectName === undefined
      ? await rows<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.display_id = $2 ORDER BY r.id`, [orgId, displayId])
      : await rows<RunRow>(sql, `${SELECT_RUN} WHERE r.org_id = $1 AND r.display_id = $2 AND p.name = $3 ORDER BY r.id`, [
          orgId,
          displayId,
          projectName,
        ]);
  return found.map(toRun);
}

/**
 * Must run inside a transaction (see Store.createRun). Concurrent creates with one externalId:
 * the INSERT … ON CONFLICT (project_id, external_id) DO NOTHING of all but one finds the row the
 * first committed (they wait on the project row's lock, taken with the run number), and resumes it.
 */
export async function createRun(sql: Sql, orgId: string, input: CreateRunInput, actor: Actor): Promise<{ run: Run; resumed: boolean }> {
  const project = await getOrCreateProjectRow(sql, orgId, input.projectName, input.now);
  checkProjectTakesRuns(project);
  if (input.externalId !== undefined) {
    const existing = await existingRunId(sql, project.id, input.externalId);
    if (existing !== undefined) return { run: (await resumeRun(sql, orgId, existing, input.now, actor))!, resumed: true };
  }

  let config = input.config ?? null;
  let tags = input.tags;
  if (input.fork) {
    const parent = await getRun(sql, orgId, input.fork.runId);
    const child = { projectId: project.id, projectName: input.projectName, config, tags };
    ({ config, tags } = forkedAttributes(input.fork, parent, parent ? await ownLastStep(sql, parent.id) : null, child));
  }

  const number = await takeRunNumber(sql, project, input.now);
  const createdAt = input.createdAt ?? input.now;
  const inserted = await row<{ id: number }>(
    sql,
    `INSERT INTO runs (org_id, project_id, name, number, display_id, external_id, status, tags, config, system_metadata,
                       logger_settings, created_at, updated_at, heartbeat_at, forked_from_run_id, fork_step, mlflow_id, mlflow_tags)
     VALUES ($1, $2, $3, $4, $5, $6, 'RUNNING', $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (project_id, external_id) DO NOTHING RETURNING id`,
    [
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
    ],
  );
  if (!inserted) {
    // Another create with this externalId committed first: resume its run (the number stays a gap).
    const existing = (await existingRunId(sql, project.id, input.externalId!))!;
    return { run: (await resumeRun(sql, orgId, existing, input.now, actor))!, resumed: true };
  }
  await insertStatusEvent(sql, {
    runId: inserted.id,
    fromStatus: null,
    toStatus: "RUNNING",
    source: "api",
    metadata: null,
    actor,
    createdAt,
  });
  return { run: (await getRun(sql, orgId, inserted.id))!, resumed: false };
}

async function existingRunId(sql: Sql, projectId: number, externalId: string): Promise<number | undefined> {
  return (await row<{ id: number }>(sql, "SELECT id FROM runs WHERE project_id = $1 AND external_id = $2", [projectId, externalId]))?.id;
}

/** The run's own last logged step over all its metrics; null when it has no points. */
async function ownLastStep(sql: Sql, runId: number): Promise<number | null> {
  return (await row<{ last: number | null }>(sql, "SELECT max(last_step) AS last FROM metrics WHERE run_id = $1", [runId]))!.last;
}

/** Must run inside a transaction (see Store.resumeRun): the run row's lock orders concurrent resumes and status writes. */
export async function resumeRun(sql: Sql, orgId: string, runId: number, now: number, actor: Actor): Promise<Run | undefined> {
  const locked = await row<{ status: RunStatus }>(sql, "SELECT status FROM runs WHERE org_id = $1 AND id = $2 FOR UPDATE", [orgId, runId]);
  if (!locked) return undefined;
  await run(sql, "UPDATE runs SET heartbeat_at = $1 WHERE id = $2", [now, runId]);
  if (locked.status !== "RUNNING") {
    await run(sql, "UPDATE runs SET status = 'RUNNING', status_updated = $1, updated_at = $1 WHERE id = $2", [now, runId]);
    await insertStatusEvent(sql, {
      runId,
      fromStatus: locked.status,
      toStatus: "RUNNING",
      source: "resume",
      metadata: null,
      actor,
      createdAt: now,
    });
  }
  return getRun(sql, orgId, runId);
}
