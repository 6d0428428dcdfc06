import { checkRetentionPolicy, purgeDueAt, type RetentionPolicy } from "../domain/deletion.js";
import { DomainError, projectNotFound } from "../domain/errors.js";
import { toIso } from "../domain/time.js";
import type { Store } from "../store/store.js";
import type { ServiceDeps } from "./deps.js";

/** How many runs a retention dry-run lists (its total counts them all). */
export const DRY_RUN_LISTED = 1000;

/**
 * Deletion, the trash and retention for Stepwise's routes (docs/api.md, "Deletion and retention").
 * A project's delete and restore are MLflow's experiment delete and restore (MlflowStore.updateProjectMlflow:
 * the project's runs take its deletedAt), so both protocols see one trash.
 */
export class DeletionService {
  constructor(private readonly deps: Pick<ServiceDeps, "store" | "clock" | "config">) {}

  private purgeAfter(deletedAt: number): string {
    return toIso(purgeDueAt(deletedAt, this.deps.config.deletedRetentionMs));
  }

  async deleteRuns(orgId: string, runIds: number[]) {
    const now = this.deps.clock.now();
    return { deleted: await this.deps.store.deleteRuns(orgId, runIds, now), purgeAfter: this.purgeAfter(now) };
  }

  async restoreRuns(orgId: string, runIds: number[]) {
    return { restored: await this.deps.store.restoreRuns(orgId, runIds, this.deps.clock.now()) };
  }

  async deleteProject(orgId: string, projectName: string) {
    const { store, clock } = this.deps;
    const project = await store.getMlflowProjectByName(orgId, projectName);
    if (!project || project.deletedAt !== null) throw projectNotFound(projectName);
    const now = clock.now();
    const deleted = await store.updateProjectMlflow(
      orgId,
      project.id,
      (state) => {
        if (state.deletedAt !== null) throw projectNotFound(projectName);
        return { ...state, deletedAt: now };
      },
      now,
    );
    if (!deleted) throw projectNotFound(projectName);
    return { projectName, runCount: project.runCount, purgeAfter: this.purgeAfter(now) };
  }

  async restoreProject(orgId: string, projectName: string) {
    const { store, clock } = this.deps;
    const project = await store.getMlflowProjectByName(orgId, projectName);
    if (!project || project.deletedAt === null) throw new DomainError("PROJECT_NOT_FOUND", `project '${projectName}' is not in the trash`);
    const now = clock.now();
    const restored = await store.updateProjectMlflow(orgId, project.id, (state) => ({ ...state, deletedAt: null }), now);
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

  async setRetention(orgId: string, projectName: string, policy: RetentionPolicy | null) {
    const project = await liveProject(this.deps.store, orgId, projectName);
    const checked = policy && checkRetentionPolicy(policy);
    if (!(await this.deps.store.setRetentionPolicy(orgId, project.id, checked, this.deps.clock.now()))) throw projectNotFound(projectName);
    return this.getRetention(orgId, projectName);
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

async function liveProject(store: Store, orgId: string, projectName: string) {
  const project = await store.getProjectByName(orgId, projectName);
  if (!project) throw projectNotFound(projectName);
  return project;
}
