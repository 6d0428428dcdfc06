// Shapes of the API the UI reads, derived from the server's TypeBox schemas (src/http/schemas), so
// a schema change that breaks the UI fails `npm run typecheck`. Imports are type-only: no server
// code is bundled into the UI. The server's rules and constants the UI applies come from
// src/domain/shared-with-ui.ts instead.

import type { Static } from "typebox";
import type { Condition } from "../../src/domain/shared-with-ui.ts";
import type {
  CreateDestinationBody,
  CreateDestinationResponse,
  CreateRuleBody,
  DeliveryListResponse,
  DestinationListResponse,
  EventListResponse,
  Rule,
  TestDeliveryResponse,
  UpdateRuleBody,
} from "../../src/http/schemas/alerts.ts";
import type { AuditListResponse, AuditQuery as AuditQuerySchema } from "../../src/http/schemas/audit.ts";
import type { SuccessResponse as SuccessSchema } from "../../src/http/schemas/common.ts";
import type {
  InvitationResponse,
  InviteBody as InviteBodySchema,
  InviteResponse,
  MemberListResponse,
  MemberResponse,
  SignedInResponse,
} from "../../src/http/schemas/people.ts";
import type { RoleSchema, SessionResponse } from "../../src/http/schemas/sessions.ts";
import type { FilesResponse } from "../../src/http/schemas/files.ts";
import type { AuthConfigResponse } from "../../src/http/schemas/oidc.ts";
import type { CreateKeyBody, CreateKeyResponse, KeyItem, KeyListResponse } from "../../src/http/schemas/keys.ts";
import type {
  DataQuery as DataQuerySchema,
  DataResponse,
  LogsQuery as LogsQuerySchema,
  LogsResponse,
} from "../../src/http/schemas/logs.ts";
import type {
  MetricsBatchBody as MetricsBatchBodySchema,
  MetricsBatchResponse,
  MetricsQuery,
  MetricsResponse,
} from "../../src/http/schemas/metrics.ts";
import type {
  ModelListQuery as ModelListQuerySchema,
  ModelListResponse,
  ModelResponse,
  ModelsOfRunResponse,
} from "../../src/http/schemas/models.ts";
import type { ProjectsResponse, ValidateKeyResponse } from "../../src/http/schemas/projects.ts";
import type { ListRunsQuery, ListRunsResponse } from "../../src/http/schemas/run-list.ts";
import type { SweepQuery as SweepQuerySchema, SweepResponse } from "../../src/http/schemas/sweep.ts";
import type { ViewListResponse, ViewResponse } from "../../src/http/schemas/saved-views.ts";
import type {
  DeleteProjectResponse,
  DeleteRunsResponse,
  RestoreProjectResponse,
  RestoreRunsResponse,
  TrashResponse,
} from "../../src/http/schemas/deletion.ts";
import type {
  AlertsResponse,
  ModelGraphResponse,
  RunDetails as RunDetailsSchema,
  StatusHistoryResponse,
} from "../../src/http/schemas/runs.ts";
import type {
  CompareResponse,
  LeaderboardQuery as LeaderboardQuerySchema,
  LeaderboardResponse,
  MetricNamesResponse,
  StatisticsResponse,
} from "../../src/http/schemas/stats.ts";

export type Success = Static<typeof SuccessSchema>;
export type Validation = Static<typeof ValidateKeyResponse>;
/** Which sign-in methods the server has on (GET /api/auth/config). */
export type AuthConfig = Static<typeof AuthConfigResponse>;
/** Who a session cookie signs in (GET /api/auth/session). */
export type Session = Static<typeof SessionResponse>;
export type Projects = Static<typeof ProjectsResponse>;
export type Project = Projects["projects"][number];

export type RunList = Static<typeof ListRunsResponse>;
export type Sweep = Static<typeof SweepResponse>;
export type SweepQuery = Static<typeof SweepQuerySchema>;
export type RunListItem = RunList["runs"][number];
export type RunListQuery = Static<typeof ListRunsQuery>;
/** A metric whose series ended in NaN or ±Inf (the run list's `divergedMetrics`). */
export type DivergedMetric = NonNullable<RunListItem["divergedMetrics"]>[number];

export type RunDetails = Static<typeof RunDetailsSchema>;

export type Statistics = Static<typeof StatisticsResponse>;
export type MetricStatistics = Statistics["metrics"][number];
/** The last point of a metric of any kind (docs/api.md, "The end of a series"). */
export type LastPoint = NonNullable<MetricStatistics["lastPoint"]>;
/** The last finite value of a metric and its step. */
export type LastFinite = NonNullable<MetricStatistics["last"]>;

export type MetricPoints = Static<typeof MetricsResponse>;
export type MetricPoint = MetricPoints["metrics"][number];
/** The step window and point budget of a metrics read (the run and metric are given apart). */
export type MetricWindow = Partial<Pick<Static<typeof MetricsQuery>, "stepMin" | "stepMax" | "limit">>;

export type Logs = Static<typeof LogsResponse>;
export type LogLine = Logs["logs"][number];
export type LogsQuery = Pick<Static<typeof LogsQuerySchema>, "logType" | "limit" | "offset">;

export type DataRows = Static<typeof DataResponse>;
export type DataRow = DataRows["rows"][number];
export type DataQuery = Pick<Static<typeof DataQuerySchema>, "logName" | "limit" | "offset">;

export type Files = Static<typeof FilesResponse>;
export type FileRecord = Files["files"][number];

export type StatusHistory = Static<typeof StatusHistoryResponse>;
export type Alerts = Static<typeof AlertsResponse>;

export type ModelGraphAnswer = Static<typeof ModelGraphResponse>;

export type Comparison = Static<typeof CompareResponse>;

export type Leaderboard = Static<typeof LeaderboardResponse>;
export type LeaderboardQuery = Static<typeof LeaderboardQuerySchema>;

export type MetricNames = Static<typeof MetricNamesResponse>;

/** The batch read (POST /api/runs/metrics/batch): many runs × many metrics, bucketed. */
export type MetricsBatchBody = Omit<Static<typeof MetricsBatchBodySchema>, "buckets"> & { buckets?: number };
export type MetricsBatch = Static<typeof MetricsBatchResponse>;
/** One series of a batch read: parallel arrays, epoch-millisecond times. */
export type BatchSeries = MetricsBatch["series"][number];

/** Registered models (MLflow's registry) and what a run logged, for the Models pages and the run page's Models tab. */
export type ModelList = Static<typeof ModelListResponse>;
export type ModelListQuery = Partial<Static<typeof ModelListQuerySchema>>;
export type ModelSummary = ModelList["models"][number];
export type Model = Static<typeof ModelResponse>;
export type ModelVersion = Model["versions"][number];
export type ModelsOfRun = Static<typeof ModelsOfRunResponse>;
export type LoggedModel = ModelsOfRun["loggedModels"][number];

export type SavedViewList = Static<typeof ViewListResponse>;
export type SavedViewSummary = SavedViewList["views"][number];
export type SavedView = Static<typeof ViewResponse>;
export type DeletedRuns = Static<typeof DeleteRunsResponse>;
export type RestoredRuns = Static<typeof RestoreRunsResponse>;
export type DeletedProject = Static<typeof DeleteProjectResponse>;
export type RestoredProject = Static<typeof RestoreProjectResponse>;
export type Trash = Static<typeof TrashResponse>;
export type AuditList = Static<typeof AuditListResponse>;
export type AuditEntry = AuditList["entries"][number];
export type AuditQuery = Partial<Static<typeof AuditQuerySchema>>;
export type TrashedRun = Trash["runs"][number];

/** Alerts (docs/api.md, "Alerts"): the organization's destinations and outbox, a project's rules and their events. */
export type AlertDestinations = Static<typeof DestinationListResponse>;
export type AlertDestination = AlertDestinations["destinations"][number];
export type NewAlertDestination = Static<typeof CreateDestinationBody>;
export type CreatedAlertDestination = Static<typeof CreateDestinationResponse>;
export type AlertTestDelivery = Static<typeof TestDeliveryResponse>;
/** A rule as stored: the schema answers its condition as an open object; it is the domain's normalized Condition. */
export type AlertRule = Omit<Static<typeof Rule>, "condition"> & { condition: Condition };
export type AlertRules = { rules: AlertRule[] };
export type NewAlertRule = Static<typeof CreateRuleBody>;
export type AlertRuleChange = Static<typeof UpdateRuleBody>;
export type AlertEvents = Static<typeof EventListResponse>;
export type AlertEvent = AlertEvents["events"][number];
export type AlertDelivery = AlertEvent["deliveries"][number];
export type AlertOutbox = Static<typeof DeliveryListResponse>;
export type OutboxDelivery = AlertOutbox["deliveries"][number];

/** Sign-in and members (docs/api.md, "Sign-in and sessions", "Members"). */
export type Role = Static<typeof RoleSchema>;
export type SignedIn = Static<typeof SignedInResponse>;
export type Invitation = Static<typeof InvitationResponse>;
export type Members = Static<typeof MemberListResponse>;
export type Member = Members["members"][number];
export type InviteBody = Static<typeof InviteBodySchema>;
export type Invited = Static<typeof InviteResponse>;
export type MemberAnswer = Static<typeof MemberResponse>;
export type ApiKeyItem = Static<typeof KeyItem>;
export type KeyList = Static<typeof KeyListResponse>;
export type NewKey = Static<typeof CreateKeyBody>;
export type CreatedKey = Static<typeof CreateKeyResponse>;
