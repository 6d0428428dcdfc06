import { DomainError } from "../../domain/errors.js";
import { displayPrefix } from "../../domain/ids.js";
import { DEFAULT_EXPERIMENT_NAME } from "../../domain/mlflow/ids.js";
import type { Json } from "../../domain/merge.js";
import { conflictOnUnique } from "../conflicts.js";
import { toJsonText } from "../rows.js";
import type { MlflowProject, MlflowRun, Project, ProjectMlflowState, RunMlflowState } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** A run's MLflow state as stored: JSON fields as text. */
export interface RunMlflowRow {
  name: string;
  configText: string | null;
  mlflowTagsText: string;
  mlflowInputsText: string | null;
  deletedAt: number | null;
}

/** What MLflow's experiment and run writes ask of a backend, each inside the workflow's transaction. */
export interface MlflowOperations {
  /** The project as ProjectStore reads it (the one createProject returns). */
  getProject(orgId: string, projectId: number): Project | undefined;
  /** The project with MLflow's fields, read locked when `lock` (PostgreSQL's FOR UPDATE). */
  getMlflowProject(orgId: string, projectId: number, lock: boolean): MlflowProject | undefined;
  /** The new project's ID; undefined when the organization has a project of that name. */
  insertProject(orgId: string, name: string, runPrefix: string, now: number): number | undefined;
  /** The organization's project of that name, as ProjectStore reads it. */
  getProjectByName(orgId: string, name: string): Project | undefined;
  /** The organization's default experiment (the project marked as its default), read in the transaction. */
  getMlflowDefaultProject(orgId: string): MlflowProject | undefined;
  /** Marks the project as its organization's default; throws the engine's unique violation when another one is. */
  markMlflowDefaultProject(orgId: string, projectId: number): void;
  /** When the organization was created; undefined when it does not exist. */
  organizationCreatedAt(orgId: string): number | undefined;
  /** Throws the engine's unique violation when another project has the name. */
  writeProjectMlflow(projectId: number, state: ProjectMlflowState, now: number): void;
  setProjectRunsDeleted(projectId: number, deletedAt: number | null, now: number): void;
  /** The run with MLflow's fields, read locked (PostgreSQL's FOR UPDATE). */
  lockMlflowRun(orgId: string, runId: number): MlflowRun | undefined;
  getMlflowRun(orgId: string, runId: number): MlflowRun | undefined;
  writeRunMlflow(runId: number, row: RunMlflowRow, now: number): void;
}

const perform = performer<MlflowOperations>();
type MlflowWorkflow<T> = Workflow<T, MlflowOperations>;

/** Store.createProject. */
export function* createProject(orgId: string, name: string, now: number): MlflowWorkflow<Project> {
  const id = yield* perform("insertProject", orgId, name, displayPrefix(name), now);
  if (id === undefined) throw new DomainError("CONFLICT", `project '${name}' already exists`);
  return (yield* perform("getProject", orgId, id))!;
}

/**
 * Store.createMlflowDefaultProject. Concurrent first calls (several processes on one PostgreSQL):
 * the project is created by one INSERT … ON CONFLICT DO NOTHING, so every other call waits for it,
 * finds the name taken and adopts the same project, and marking it again changes nothing. Should
 * two calls ever pick different projects (the adopted one renamed and another "Default" made
 * between them), the unique index on the mark refuses the second: CONFLICT, nothing written.
 */
export function* createMlflowDefaultProject(orgId: string): MlflowWorkflow<MlflowProject> {
  const existing = yield* perform("getMlflowDefaultProject", orgId);
  if (existing) return existing;
  const createdAt = yield* perform("organizationCreatedAt", orgId);
  if (createdAt === undefined) throw new DomainError("NOT_FOUND", `organization '${orgId}' not found`);
  const name = DEFAULT_EXPERIMENT_NAME;
  const projectId =
    (yield* perform("insertProject", orgId, name, displayPrefix(name), createdAt)) ?? (yield* perform("getProjectByName", orgId, name))!.id;
  yield* conflictOnUnique(perform("markMlflowDefaultProject", orgId, projectId), "the organization has another default experiment");
  return (yield* perform("getMlflowDefaultProject", orgId))!;
}

/**
 * Store.updateProjectMlflow: `change` decides on the locked project. When the project goes from active
 * to deleted or back, every one of its runs takes the same deletedAt (MLflow's experiment delete and
 * restore carry the experiment's runs).
 */
export function* updateProjectMlflow(
  orgId: string,
  projectId: number,
  change: (state: ProjectMlflowState) => ProjectMlflowState,
  now: number,
): MlflowWorkflow<MlflowProject | undefined> {
  const project = yield* perform("getMlflowProject", orgId, projectId, true);
  if (!project) return undefined;
  const next = change({ name: project.name, mlflowTags: project.mlflowTags, deletedAt: project.deletedAt });
  yield* conflictOnUnique(perform("writeProjectMlflow", projectId, next, now), `project '${next.name}' already exists`);
  if ((next.deletedAt === null) !== (project.deletedAt === null)) yield* perform("setProjectRunsDeleted", projectId, next.deletedAt, now);
  return yield* perform("getMlflowProject", orgId, projectId, false);
}

/** Store.updateRunMlflow: `change` decides on the locked run (write-once params, tags). */
export function* updateRunMlflow(
  orgId: string,
  runId: number,
  change: (state: RunMlflowState) => RunMlflowState,
  now: number,
): MlflowWorkflow<MlflowRun | undefined> {
  const current = yield* perform("lockMlflowRun", orgId, runId);
  if (!current) return undefined;
  const next = change({
    name: current.name,
    config: current.config,
    mlflowTags: current.mlflowTags,
    mlflowInputs: current.mlflowInputs,
    deletedAt: current.deletedAt,
  });
  yield* perform(
    "writeRunMlflow",
    runId,
    {
      name: next.name,
      configText: toJsonText(next.config),
      mlflowTagsText: JSON.stringify(next.mlflowTags),
      mlflowInputsText: toJsonText(next.mlflowInputs as Json | null),
      deletedAt: next.deletedAt,
    },
    now,
  );
  return yield* perform("getMlflowRun", orgId, runId);
}
