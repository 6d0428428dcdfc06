import { checkRetentionPolicy, purgeDueAt, type RetentionPolicy } from "../domain/deletion.js";
import { DomainError, projectNotFound } from "../domain/errors.js";
import { toIso } from "../domain/time.js";
import type { ProjectMlflowState, Store } from "../store/store.js";
import type { AuditContext, AuditFact, AuditLog } from "./audit.js";
import type { ServiceDeps } from "./deps.js";

/** How many runs a retention dry-run lists (its total counts them all). */
export const DRY_RUN_LISTED = 1000;

const runFact = (
  action: "runs.delete" | "runs.restore",
  runId: number,
  run?: { displayId: string; name: string; projectName: string },
): AuditFact => ({
  action,
  target: { type: "run", id: String(runId) },
  ...(run ? { details: { displayId: run.displayId, name: run.name, projectName: run.projectName } } : {}),
});

/**
 * Deletion, the trash and retention for Stepwise's routes (docs/api.md, "Deletion and retention").
 * A project's delete and restore are MLflow's experiment delete and restore (MlflowStore.updateProjectMlflow:
 * the project's runs take its deletedAt), so both protocols see one trash. Each change is recorded in
 * the audit log in its own transaction (AuditLog.write): one entry per run named, one per project or policy.
 */
export class DeletionService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "store" | "clock" | "config">,
    private readonly audit: AuditLog,
  ) {}

  private purgeAfter(deletedAt: number): string {
    return toIso(purgeDueAt(deletedAt, this.deps.config.deletedRetentionMs));
  }

  async deleteRuns(by: AuditContext, runIds: number[]) {
    const now = this.deps.clock.now();
    // What people read in the log beside a run's ID; a run in the trash already has none.
    const named = new Map((await this.deps.store.getRuns(by.orgId, runIds)).map((run) => [run.id, run]));
    const deleted = await this.audit.write(by, "deleteRuns", [by.orgId, runIds, now], (ids) =>
      ids.map((id) => runFact("runs.delete", id, named.get(id))),
    );
    return { deleted, purgeAfter: this.purgeAfter(now) };
  }

  async restoreRuns(by: AuditContext, runIds: number[]) {
    const restored = await this.audit.write(by, "restoreRuns", [by.orgId, runIds, this.deps.clock.now()], (ids) =>
      ids.map((id) => runFact("runs.restore", id)),
    );
    return { restored };
  }

  async deleteProject(by: AuditContext, projectName: string) {
    const { store, clock } = this.deps;
    const orgId = by.orgId;
    const project = await store.getMlflowProjectByName(orgId, projectName);
    if (!project || project.deletedAt !== null) throw projectNotFound(projectName);
    const now = clock.now();
    const update = (state: ProjectMlflowState) => {
      if (state.deletedAt !== null) throw projectNotFound(projectName);
      return { ...state, deletedAt: now };
    };
    const deleted = await this.audit.write(by, "updateProjectMlflow", [orgId, project.id, update, now], (done) =>
      done ? [projectFact("project.delete", projectName, { runCount: project.runCount })] : [],
    );
    if (!deleted) throw projectNotFound(projectName);
    return { projectName, runCount: project.runCount, purgeAfter: this.purgeAfter(now) };
  }

  async restoreProject(by: AuditContext, projectName: string) {
    const { store, clock } = this.deps;
    const orgId = by.orgId;
    const project = await store.getMlflowProjectByName(orgId, projectName);
    if (!project || project.deletedAt === null) throw new DomainError("PROJECT_NOT_FOUND", `project '${projectName}' is not in the trash`);
    const now = clock.now();
    const restore = (state: ProjectMlflowState) => ({ ...state, deletedAt: null });
    const restored = await this.audit.write(by, "updateProjectMlflow", [orgId, project.id, restore, now], (done) =>
      done ? [projectFact("project.restore", projectName, { runCount: done.runCount })] : [],
    );
    if (!restored) throw projectNotFound(projectName);
    return { projectName, runCount: restored.runCount };
  }

  async trash(orgId: string, query: { projectName?: string; limit: number; offset: number }) {
    const { store } = this.deps;
    const deletedProjects = await store.listDeletedProjects(orgId);
    let projectId: number | undefined;
    if (query.projectName !== undefined) {
      projectId =
        (await store.getProjectByName(orgId, query.projectName))?.id ?? deletedProjects.find((p) => p.name === query.projectName)?.id;
      if (projectId === undefined) throw projectNotFound(query.projectName);
    }
    const { runs, total } = await store.listDeletedRuns(orgId, projectId, { limit: query.limit, offset: query.offset });
    return {
      runs: runs.map((run) => ({
        runId: run.id,
        projectName: run.projectName,
        name: run.name,
        displayId: run.displayId,
        status: run.status,
        deletedAt: toIso(run.deletedAt),
        purgeAfter: this.purgeAfter(run.deletedAt),
        projectDeleted: run.projectDeleted,
      })),
      total,
      projects: deletedProjects
        .filter((p) => projectId === undefined || p.id === projectId)
        .map((p) => ({
          projectName: p.name,
          runCount: p.runCount,
          deletedAt: toIso(p.deletedAt),
          purgeAfter: this.purgeAfter(p.deletedAt),
        })),
    };
  }

  async getRetention(orgId: string, projectName: string) {
    const project = await liveProject(this.deps.store, orgId, projectName);
    const policy = await this.deps.store.getRetentionPolicy(orgId, project.id);
    return {
      projectName,
      policy: policy ? { maxAgeDays: policy.maxAgeDays, excludeTag: policy.excludeTag, updatedAt: toIso(policy.updatedAt) } : null,
    };
  }

  async setRetention(by: AuditContext, projectName: string, policy: RetentionPolicy | null) {
    const project = await liveProject(this.deps.store, by.orgId, projectName);
    const checked = policy && checkRetentionPolicy(policy);
    const details = { policy: checked && { maxAgeDays: checked.maxAgeDays, excludeTag: checked.excludeTag } };
    const set = await this.audit.write(by, "setRetentionPolicy", [by.orgId, project.id, checked, this.deps.clock.now()], (done) =>
      done ? [projectFact("retention.set", projectName, details)] : [],
    );
    if (!set) throw projectNotFound(projectName);
    return this.getRetention(by.orgId, projectName);
  }

  async retentionDryRun(orgId: string, projectName: string) {
    const { store, clock } = this.deps;
    const project = await liveProject(store, orgId, projectName);
    const ids = await store.retireRuns(orgId, project.id, clock.now(), false);
    const runs = await store.getRuns(orgId, ids.slice(0, DRY_RUN_LISTED));
    return {
      projectName,
      total: ids.length,
      runs: runs.map((run) => ({
        runId: run.id,
        name: run.name,
        displayId: run.displayId,
        status: run.status,
        finishedAt: toIso(run.statusUpdated!),
        tags: run.tags,
      })),
    };
  }
}

function projectFact(action: AuditFact["action"], projectName: string, details: AuditFact["details"]): AuditFact {
  return { action, target: { type: "project", id: projectName }, details };
}

async function liveProject(store: Store, orgId: string, projectName: string) {
  const project = await store.getProjectByName(orgId, projectName);
  if (!project) throw projectNotFound(projectName);
  return project;
}
