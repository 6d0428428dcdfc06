import { DomainError } from "../domain/errors.js";
import { doesNotExist, invalidParameter, MlflowError } from "../domain/mlflow/errors.js";
import { DEFAULT_EXPERIMENT_NAME, experimentIdOf } from "../domain/mlflow/ids.js";
import { applyTags } from "../domain/mlflow/model.js";
import { type Clause, compareKeys, compileClause, type OrderTerm, type SortValue } from "../domain/mlflow/search.js";
import { withoutTag } from "../domain/mlflow/tags.js";
import { checkRenamable, experimentDeletedAtAfter, inView, type ViewType } from "../domain/mlflow/views.js";
import { encodePageToken, pageTokenCount } from "../domain/page-token.js";
import type { AuditContext, AuditLog } from "./audit.js";
import type { Clock } from "../domain/time.js";
import type { MlflowProject, ProjectMlflowState, Store } from "../store/store.js";
import { defaultExperiment, findExperiment, updateProjectMlflow } from "./mlflow.js";

/** An experiment search, its filter and order parsed (parseFilter and parseOrderBy with EXPERIMENT_ATTRIBUTES). */
export interface ExperimentSearch {
  clauses: Clause[];
  terms: OrderTerm[];
  maxResults: number;
  viewType: ViewType;
  pageToken?: string;
}

/** The value of an experiment that a filter clause or order term names: undefined when it has none. */
function experimentValue(project: MlflowProject, entity: string, key: string): string | number | undefined {
  if (entity === "tag") return new Map(project.mlflowTags).get(key);
  if (entity !== "attribute") return undefined;
  if (key === "name") return project.name;
  if (key === "experiment_id") return experimentIdOf(project.id, project.defaultExperiment);
  return key === "creation_time" ? project.createdAt : project.updatedAt;
}

/** A project name taken by another experiment, in MLflow's words. */
function nameTaken(name: string) {
  return (error: unknown) => {
    if (error instanceof DomainError && error.code === "CONFLICT")
      throw new MlflowError("RESOURCE_ALREADY_EXISTS", `Experiment(name=${name}) already exists.`);
    throw error;
  };
}

/** MLflow's experiment workflows: an experiment is a Stepwise project (docs/api.md, "MLflow's REST API"). */
export class MlflowExperiments {
  constructor(
    private readonly deps: { store: Store; clock: Clock },
    private readonly audit: AuditLog,
  ) {}

  /**
   * Creates the experiment (a project) with its tags; returns its experiment ID. The name "Default"
   * is the default experiment's until it is renamed, as on MLflow's server, where it exists from the start.
   */
  async create(orgId: string, name: string, tags: [string, string][]): Promise<string> {
    const { store, clock } = this.deps;
    if (name === DEFAULT_EXPERIMENT_NAME) await defaultExperiment(store, orgId);
    const project = await store.createProject(orgId, name, clock.now()).catch(nameTaken(name));
    if (tags.length > 0)
      await updateProjectMlflow(store, orgId, project.id, (s) => ({ ...s, mlflowTags: applyTags(s.mlflowTags, tags) }), clock.now());
    return experimentIdOf(project.id, false);
  }

  async getByName(orgId: string, name: string): Promise<MlflowProject> {
    if (name === DEFAULT_EXPERIMENT_NAME) await defaultExperiment(this.deps.store, orgId);
    const project = await this.deps.store.getMlflowProjectByName(orgId, name);
    if (!project) throw doesNotExist(`Could not find experiment with name '${name}'`);
    return project;
  }

  /** MLflow's experiment search: filtered, ordered by the full key (compareKeys) and paged by offset. */
  async search(orgId: string, request: ExperimentSearch): Promise<{ experiments: MlflowProject[]; nextPageToken?: string }> {
    const { clauses, terms, maxResults, viewType } = request;
    const offset = request.pageToken ? pageTokenCount(request.pageToken, "offset") : 0;
    // Every organization has the default experiment: it is listed like any other.
    await defaultExperiment(this.deps.store, orgId);
    const tests = clauses.map((clause) => ({ clause, test: compileClause(clause) }));
    for (const clause of clauses)
      if (clause.entity !== "tag" && clause.entity !== "attribute")
        throw invalidParameter(`Invalid entity type in experiment filter: ${clause.entity}`);
    const projects = (await this.deps.store.listMlflowProjects(orgId)).filter(
      (p) => inView(p.deletedAt, viewType) && tests.every(({ clause, test }) => test(experimentValue(p, clause.entity, clause.key))),
    );
    // Ties: newest first, then by experiment ID as a number ("0", the default, first), as MLflow's server.
    const keyOf = (p: MlflowProject): SortValue[] => [
      ...terms.map((t) => experimentValue(p, t.entity, t.key) ?? null),
      p.createdAt,
      Number(experimentIdOf(p.id, p.defaultExperiment)),
    ];
    const keys = new Map(projects.map((p) => [p.id, keyOf(p)]));
    projects.sort((a, b) => compareKeys(keys.get(a.id)!, keys.get(b.id)!, terms));
    const more = offset + maxResults < projects.length;
    return {
      experiments: projects.slice(offset, offset + maxResults),
      nextPageToken: more ? encodePageToken({ offset: offset + maxResults }) : undefined,
    };
  }

  /** The experiment a request names (RESOURCE_DOES_NOT_EXIST when there is none); a request's other fields are parsed after it, as on MLflow's server. */
  find(orgId: string, experimentId: unknown): Promise<MlflowProject> {
    return findExperiment(this.deps.store, orgId, experimentId);
  }

  async rename(orgId: string, project: MlflowProject, name: string): Promise<void> {
    const { store, clock } = this.deps;
    const renamed = (s: ProjectMlflowState) => {
      checkRenamable(s.deletedAt);
      return { ...s, name };
    };
    await updateProjectMlflow(store, orgId, project.id, renamed, clock.now()).catch(nameTaken(name));
  }

  /** Deletes (keeping an earlier deletion time) or restores the experiment. */
  async setDeleted(by: AuditContext, experimentId: unknown, deleted: boolean): Promise<void> {
    const { store, clock } = this.deps;
    const project = await findExperiment(store, by.orgId, experimentId);
    const now = clock.now();
    const named = experimentIdOf(project.id, project.defaultExperiment);
    // Recorded in the audit log when it moves the project in or out of the trash (a second delete keeps the first).
    let moved = false;
    const change = (s: ProjectMlflowState) => {
      const deletedAt = experimentDeletedAtAfter(deleted, s.deletedAt, now, named);
      moved = (deletedAt === null) !== (s.deletedAt === null);
      return { ...s, deletedAt };
    };
    await this.audit.write(by, "updateProjectMlflow", [by.orgId, project.id, change, now], (done) =>
      done && moved
        ? [
            {
              action: deleted ? "project.delete" : "project.restore",
              target: { type: "project", id: done.name },
              details: { via: "mlflow" },
            },
          ]
        : [],
    );
  }

  async setTag(orgId: string, project: MlflowProject, tag: [string, string]): Promise<void> {
    const { store, clock } = this.deps;
    await updateProjectMlflow(store, orgId, project.id, (s) => ({ ...s, mlflowTags: applyTags(s.mlflowTags, [tag]) }), clock.now());
  }

  async deleteTag(orgId: string, project: MlflowProject, key: string): Promise<void> {
    const { store, clock } = this.deps;
    const missing = () => doesNotExist(`No tag with name: ${key} in experiment ${experimentIdOf(project.id, project.defaultExperiment)}`);
    await updateProjectMlflow(store, orgId, project.id, (s) => ({ ...s, mlflowTags: withoutTag(s.mlflowTags, key, missing) }), clock.now());
  }
}
