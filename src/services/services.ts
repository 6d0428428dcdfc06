import { AlertService } from "./alerts.js";
import { AuditLog } from "./audit.js";
import type { ServiceDeps } from "./deps.js";
import { FileService } from "./files.js";
import { IngestService } from "./ingest.js";
import { MlflowExperiments } from "./mlflow-experiments.js";
import { MlflowRegistry } from "./mlflow-registry.js";
import { MlflowLoggedModels } from "./mlflow-logged-models.js";
import { MlflowRuns } from "./mlflow-runs.js";
import { RunLifecycle } from "./runs.js";
import { DeletionService } from "./deletion.js";
import { PeopleService } from "./people.js";
import { OidcService } from "./oidc.js";
import { SessionService } from "./sessions.js";

export type { ServiceDeps };

/** The write workflows, one service each; both protocols' routes call these (docs/architecture.md). */
export interface Services {
  /** Create, resume, status, tags, notes, config, ... of a run. */
  runs: RunLifecycle;
  /** Metric points, console lines and data rows, of both protocols. */
  ingest: IngestService;
  /** Register, upload, list, download and delete files (and MLflow's artifacts). */
  files: FileService;
  /** MLflow's experiments (Stepwise projects). */
  mlflowExperiments: MlflowExperiments;
  mlflowRegistry: MlflowRegistry;
  /** MLflow's run writes: create, update, log-batch (through ingest.ts), tags, inputs, models. */
  mlflowRuns: MlflowRuns;
  /** MLflow 3's logged models. */
  mlflowLoggedModels: MlflowLoggedModels;
  /** Alert destinations, rules, events and deliveries, and the evaluator the writes above call. */
  alerts: AlertService;
  /** Delete and restore runs and projects, the trash, retention policies. */
  deletion: DeletionService;
  /** The organization's audit log: record an event, or a store write with its events; read a page. */
  audit: AuditLog;
  /** Browser sessions: sign-in, the cookie's session, sign-out. */
  sessions: SessionService;
  /** Invitations, passwords, password sign-in and its limits, members' roles. */
  people: PeopleService;
  /** Single sign-on with an OpenID Connect provider (on when --oidc-issuer is set). */
  oidc: OidcService;
}

/** The services of one application (src/app.ts builds them once, so state such as upload turns is shared by every route). */
export function createServices(deps: ServiceDeps): Services {
  const audit = new AuditLog(deps);
  const alerts = new AlertService(deps, audit);
  const runs = new RunLifecycle(deps, alerts.evaluator);
  const ingest = new IngestService(deps, alerts.evaluator);
  return {
    alerts,
    runs,
    ingest,
    files: new FileService(deps),
    mlflowExperiments: new MlflowExperiments(deps, audit),
    mlflowRegistry: new MlflowRegistry(deps),
    mlflowRuns: new MlflowRuns(deps, runs, ingest, audit),
    mlflowLoggedModels: new MlflowLoggedModels(deps),
    deletion: new DeletionService(deps, audit),
    audit,
    oidc: new OidcService(deps, audit),
    sessions: new SessionService(deps.store, deps.clock, { idleMs: deps.config.sessionIdleMs, maxAgeMs: deps.config.sessionMaxAgeMs }),
    people: new PeopleService(deps.store, deps.clock, audit),
  };
}
