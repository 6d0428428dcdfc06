import { DomainError } from "../domain/errors.js";
import { ARTIFACT_LOG_NAME, artifactFile } from "../domain/mlflow/artifacts.js";
import { DEFAULT_EXPERIMENT_ID, DEFAULT_EXPERIMENT_NAME, experimentIdOf } from "../domain/mlflow/ids.js";
import { importedWhole, versionsToImport } from "../domain/mlflow/import.js";
import { artifactUri, toStepwiseStatus } from "../domain/mlflow/model.js";
import { orderDistinct } from "../domain/metric-points.js";
import type { Actor, MetricSeries, MlflowProject, MlflowRun } from "../store/store.js";
import { cliAuditContext, type AuditContext } from "./audit.js";
import type { MlflowSource, SourceArtifact, SourceExperiment, SourceModel, SourceRun } from "../import/mlflow/source.js";
import type { ServiceDeps } from "./deps.js";
import { defaultExperiment } from "./mlflow.js";
import type { Services } from "./services.js";

/** What one import read from the source and wrote (docs/import.md, "MLflow → Stepwise", "The summary"). */
export interface ImportCounts {
  experiments: number;
  experimentsCreated: number;
  experimentsSkipped: number;
  runs: number;
  runsImported: number;
  runsResumed: number;
  runsWhole: number;
  runsFailed: number;
  params: number;
  tags: number;
  datasetInputs: number;
  /** Points read from the source, and the points the imported runs' metrics hold in Stepwise after. */
  pointsRead: number;
  pointsStored: number;
  artifacts: number;
  artifactsCopied: number;
  artifactBytes: number;
  models: number;
  versions: number;
  versionsImported: number;
  versionsSkipped: number;
}

export const emptyCounts = (): ImportCounts => ({
  experiments: 0,
  experimentsCreated: 0,
  experimentsSkipped: 0,
  runs: 0,
  runsImported: 0,
  runsResumed: 0,
  runsWhole: 0,
  runsFailed: 0,
  params: 0,
  tags: 0,
  datasetInputs: 0,
  pointsRead: 0,
  pointsStored: 0,
  artifacts: 0,
  artifactsCopied: 0,
  artifactBytes: 0,
  models: 0,
  versions: 0,
  versionsImported: 0,
  versionsSkipped: 0,
});

/** How an import reports as it goes (the CLI draws progress lines from these). */
export interface ImportReporter {
  /** `runs`: how many the experiment holds in the source (listed before any is written, for an ETA). */
  experimentStarted(experiment: SourceExperiment, runs: number): void;
  runDone(run: SourceRun, outcome: "imported" | "resumed" | "whole" | "failed"): void;
  pointsWritten(count: number): void;
  experimentDone(experiment: SourceExperiment): void;
  warn(message: string): void;
}

export interface ImportOptions {
  /** Only the experiments of these names; every one when empty. */
  experiments: string[];
  /** Stops the import between two writes (Ctrl-C): runs not finished are resumed by the next import. */
  signal: AbortSignal;
  reporter: ImportReporter;
}

/** An import stopped by its signal: whatever is written is whole or resumable (docs/import.md, "MLflow → Stepwise"). */
export class ImportInterrupted extends Error {
  constructor() {
    super("interrupted");
  }
}

const IMPORTER: Actor = { userId: null, apiKeyId: null };
/** Artifacts of one run copied at a time, and metrics of one run read and written at a time (a server answers several requests at once). */
const ARTIFACT_CONCURRENCY = 4;
const METRIC_CONCURRENCY = 4;

/** Calls `work` on every item, at most `limit` at a time; the first failure is thrown once the others have stopped. */
async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await work(items[next++]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}

/**
 * `stepwise import mlflow`: reads an MLflow tracking store (a MlflowSource) and writes it through
 * the services MLflow's REST routes use, so an imported run is what MLflow's client would have made
 * logging to Stepwise: experiments become projects, runs keep their MLflow run IDs, names, status,
 * times and user, params (config), tags, every metric point, dataset inputs and artifacts; then the
 * registered models and their versions.
 *
 * Idempotent and resumable by MLflow run ID: a run's status is written last, so a run whose stored
 * status is the source's terminal one is whole and skipped (importedWhole); any other run found by
 * its ID is imported again over what is there — params and tags are set to the same values, metric
 * points identical to stored ones are kept once (MLflow's keep-every-point rule), and only the
 * artifacts not yet stored are copied.
 */
export class MlflowImport {
  readonly counts = emptyCounts();
  private readonly projects = new Map<string, MlflowProject>();

  constructor(
    private readonly deps: ServiceDeps,
    private readonly services: Services,
    private readonly orgId: string,
    private readonly source: MlflowSource,
    private readonly options: ImportOptions,
  ) {}

  async run(): Promise<ImportCounts> {
    const wanted = new Set(this.options.experiments);
    const all = await this.source.experiments();
    for (const name of wanted)
      if (!all.some((e) => e.name === name)) this.options.reporter.warn(`no experiment named '${name}' in ${this.source.label}`);
    for (const experiment of all) {
      if (wanted.size > 0 && !wanted.has(experiment.name)) continue;
      this.counts.experiments++;
      if (experiment.deleted) {
        this.counts.experimentsSkipped++;
        this.options.reporter.warn(`experiment '${experiment.name}' (${experiment.id}) is deleted in the source: not imported`);
        continue;
      }
      // The runs' records first (small: no metric points), so the progress has a total and an ETA.
      const runs: SourceRun[] = [];
      for await (const run of this.source.runs(experiment.id)) runs.push(run);
      this.options.reporter.experimentStarted(experiment, runs.length);
      for (const run of runs) {
        this.checkSignal();
        await this.importRun(experiment, run);
      }
      this.options.reporter.experimentDone(experiment);
    }
    if (wanted.size === 0) await this.importModels();
    return this.counts;
  }

  private checkSignal(): void {
    if (this.options.signal.aborted) throw new ImportInterrupted();
  }

  /** The project of a source experiment: the organization's default for MLflow's "0", else the project of its name (created with its tags). */
  private async projectOf(experiment: SourceExperiment): Promise<MlflowProject> {
    const known = this.projects.get(experiment.id);
    if (known) return known;
    const { store } = this.deps;
    const isDefault = experiment.id === DEFAULT_EXPERIMENT_ID && experiment.name === DEFAULT_EXPERIMENT_NAME;
    let project = isDefault ? await defaultExperiment(store, this.orgId) : await store.getMlflowProjectByName(this.orgId, experiment.name);
    if (!project) {
      await this.services.mlflowExperiments.create(this.orgId, experiment.name, experiment.tags);
      project = (await store.getMlflowProjectByName(this.orgId, experiment.name))!;
      this.counts.experimentsCreated++;
    } else {
      const stored = new Map(project.mlflowTags);
      for (const tag of experiment.tags)
        if (stored.get(tag[0]) !== tag[1]) await this.services.mlflowExperiments.setTag(this.orgId, project, tag);
    }
    this.projects.set(experiment.id, project);
    return project;
  }

  /** The import's deletions and restores are the operator's command line in the audit log. */
  private get auditedAs(): AuditContext {
    return cliAuditContext(this.orgId);
  }

  private async importRun(experiment: SourceExperiment, run: SourceRun): Promise<void> {
    const { reporter } = this.options;
    this.counts.runs++;
    const existing = await this.deps.store.getRunByMlflowId(this.orgId, run.runId);
    if (existing && importedWhole(existing.status, run.status)) {
      // Deleted or restored in the source since: the one change a whole run may still take.
      if (run.deleted !== (existing.deletedAt !== null)) await this.services.mlflowRuns.setDeleted(this.auditedAs, run.runId, run.deleted);
      this.counts.runsWhole++;
      reporter.runDone(run, "whole");
      return;
    }
    try {
      await this.writeRun(experiment, run, existing);
    } catch (error) {
      if (error instanceof ImportInterrupted) throw error;
      this.counts.runsFailed++;
      reporter.warn(`run ${run.runId} ('${run.name}'): ${(error as Error).message}`);
      reporter.runDone(run, "failed");
      return;
    }
    if (existing) this.counts.runsResumed++;
    else this.counts.runsImported++;
    reporter.runDone(run, existing ? "resumed" : "imported");
  }

  /** Writes a run whole, its status last (what importedWhole reads). */
  private async writeRun(experiment: SourceExperiment, run: SourceRun, existing: MlflowRun | undefined): Promise<void> {
    const { mlflowRuns } = this.services;
    const now = this.deps.clock.now();
    const stored = existing ?? (await this.createRun(experiment, run, now));
    // A resumed run may have been deleted by an earlier import that stopped after it: restored while it is written.
    if (stored.deletedAt !== null) await mlflowRuns.setDeleted(this.auditedAs, run.runId, false);
    const ref = { id: stored.id, mlflowId: stored.mlflowId, deletedAt: null };
    await mlflowRuns.logBatch(this.orgId, ref, { params: run.params, tags: existing ? run.tags : [], metrics: [] });
    await mlflowRuns.logInputs(this.orgId, ref, run.inputs);
    this.counts.params += run.params.length;
    this.counts.tags += run.tags.length;
    this.counts.datasetInputs += run.inputs.length;

    await eachBounded(run.metricKeys, METRIC_CONCURRENCY, async (key) => {
      for await (const slice of this.source.metricHistory(run, key)) {
        this.checkSignal();
        if (slice.length === 0) continue;
        const series: MetricSeries = orderDistinct({
          logName: key,
          steps: slice.map((p) => p.step),
          values: slice.map((p) => p.value),
          times: slice.map((p) => p.timestamp),
          rule: "keep-every-point",
        });
        await this.services.ingest.metrics(this.orgId, stored.id, [series], this.deps.clock.now());
        this.counts.pointsRead += slice.length;
        this.options.reporter.pointsWritten(slice.length);
      }
    });
    for (const summary of await this.deps.store.listMetricSummaries(this.orgId, stored.id))
      this.counts.pointsStored += summary.count + summary.nonFiniteCount;

    await this.copyArtifacts(run, stored.id);

    const status = toStepwiseStatus(run.status);
    if (status !== "RUNNING") {
      const current = (await this.deps.store.getMlflowRun(this.orgId, stored.id))!;
      await mlflowRuns.update(this.orgId, current, { name: "", status, endTime: run.endTime ?? run.startTime }, IMPORTER);
    }
    if (run.deleted) await mlflowRuns.setDeleted(this.auditedAs, run.runId, true);
  }

  /**
   * Creates the run with the source's MLflow run ID. MLflow run IDs are unique across a Stepwise
   * server (MLflow's client names a run by its ID alone), so a source imported into one organization
   * already cannot be imported into a second one: said in those words, not the index's.
   */
  private async createRun(experiment: SourceExperiment, run: SourceRun, now: number): Promise<MlflowRun> {
    const project = await this.projectOf(experiment);
    const input = { name: run.name, mlflowTags: run.tags, userId: run.userId, createdAt: run.startTime, mlflowId: run.runId };
    try {
      return await this.services.mlflowRuns.create(this.orgId, project, input, IMPORTER, now);
    } catch (error) {
      if (!/mlflow_id/.test((error as Error).message)) throw error;
      throw new DomainError(
        "CONFLICT",
        "its MLflow run ID is taken by a run of another organization of this Stepwise (MLflow run IDs are unique across a server): import a source into one organization only",
      );
    }
  }

  /** Copies the run's artifacts that Stepwise does not have yet (same path and size), a few at a time. */
  private async copyArtifacts(run: SourceRun, runId: number): Promise<void> {
    const { files } = this.services;
    const stored = new Map(
      (await this.deps.store.listFiles(this.orgId, runId, { logName: ARTIFACT_LOG_NAME })).map((f) => [f.fileName, f.fileSize]),
    );
    const missing: SourceArtifact[] = [];
    for await (const artifact of this.source.artifacts(run)) {
      this.counts.artifacts++;
      this.counts.artifactBytes += artifact.size;
      if (stored.get(artifact.path) !== artifact.size) missing.push(artifact);
    }
    await eachBounded(missing, ARTIFACT_CONCURRENCY, async (artifact) => {
      this.checkSignal();
      const now = this.deps.clock.now();
      const [file] = (await files.register(this.orgId, runId, [artifactFile(artifact.path, artifact.size, now)], () => "path", now)) ?? [];
      if (!file) throw new DomainError("NOT_FOUND", `run ${run.runId} is gone`);
      await files.receive(file, await this.source.openArtifact(run, artifact.path));
      this.counts.artifactsCopied++;
    });
  }

  /** Registered models and their versions, each version linked to its (imported) run; models already there get only the versions they lack. */
  private async importModels(): Promise<void> {
    const { mlflowRegistry } = this.services;
    for (const model of await this.source.registeredModels()) {
      this.checkSignal();
      this.counts.models++;
      this.counts.versions += model.versions.length;
      let stored = await this.deps.store.getRegisteredModel(this.orgId, model.name);
      if (!stored)
        stored = (
          await mlflowRegistry.createModel(this.orgId, { name: model.name, description: model.description, tags: model.tags, aliases: [] })
        ).model;
      const numbers = await this.importVersions(model, stored.lastVersion);
      for (const [alias, version] of model.aliases) {
        const number = numbers.get(version);
        if (number !== undefined) await mlflowRegistry.setAlias(this.orgId, model.name, alias, number);
      }
    }
  }

  /** Creates the versions Stepwise lacks, in order; answers the source's version numbers → Stepwise's. */
  private async importVersions(model: SourceModel, lastVersion: number): Promise<Map<number, number>> {
    const { mlflowRegistry } = this.services;
    const ordered = [...model.versions].sort((a, b) => a.version - b.version);
    const numbers = new Map(ordered.map((v, index) => [v.version, index + 1]));
    for (const version of versionsToImport(model.versions, lastVersion)) {
      this.checkSignal();
      const source = await this.versionSource(version.source, version.runId);
      if (source === undefined) {
        this.counts.versionsSkipped++;
        this.options.reporter.warn(
          `model '${model.name}' version ${version.version}: its source '${version.source}' is not in an imported run's artifacts: not imported (later versions are numbered one lower)`,
        );
        continue;
      }
      const created = await mlflowRegistry.createVersion(this.orgId, model.name, {
        source,
        runId: version.runId,
        runLink: version.runLink,
        description: version.description,
        tags: version.tags,
      });
      if (created.version.version !== numbers.get(version.version))
        this.options.reporter.warn(
          `model '${model.name}': source version ${version.version} is version ${created.version.version} in Stepwise`,
        );
      if (version.stage !== "None") await mlflowRegistry.transition(this.orgId, model.name, created.version.version, version.stage, false);
      this.counts.versionsImported++;
    }
    return numbers;
  }

  /**
   * A version's source in Stepwise: `runs:/` and `models:/` URIs as they are; a location inside a
   * run's artifacts becomes that run's artifact URI in Stepwise (the files were copied there);
   * undefined when it names files Stepwise does not have.
   */
  private async versionSource(source: string, runId: string): Promise<string | undefined> {
    if (/^(runs|models):/.test(source)) return source;
    const path = runId ? this.source.artifactPathOf(source, runId) : undefined;
    const run = path !== undefined ? await this.deps.store.getRunByMlflowId(this.orgId, runId) : undefined;
    if (!run || path === undefined) return undefined;
    return `${artifactUri(experimentIdOf(run.projectId, run.inDefaultExperiment), run.mlflowId)}/${path}`;
  }
}
