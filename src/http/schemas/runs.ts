import { Type } from "typebox";
import { encodeRunId } from "../../domain/ids.js";
import { NAME_LIMITS } from "../../domain/names.js";
import { LOG_TYPES } from "../../store/store.js";
import { AnyJson, EpochMs, JsonText, Nullable, NullableTimestamp, ProjectName, RunId, RunStatus, Step, Tags, Timestamp } from "./common.js";

export const CreateRunBody = Type.Object(
  {
    runName: Type.String({ minLength: 1, maxLength: NAME_LIMITS.runName }),
    projectName: ProjectName,
    externalId: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
    tags: Nullable(Tags),
    loggerSettings: Nullable(JsonText),
    systemMetadata: Nullable(JsonText),
    config: Nullable(JsonText),
    createdAt: Nullable(EpochMs),
    updatedAt: Nullable(EpochMs),
    forkRunId: Nullable(RunId),
    forkStep: Nullable(Step),
    inheritConfig: Nullable(Type.Boolean()),
    inheritTags: Nullable(Type.Boolean()),
  },
  { additionalProperties: false },
);

const RunReference = {
  runId: Type.Integer(),
  number: Type.Union([Type.Integer(), Type.Null()]),
  displayId: Type.Union([Type.String(), Type.Null()]),
  projectName: Type.String(),
  organizationSlug: Type.String(),
  url: Type.String(),
  resumed: Type.Boolean(),
};

export const CreateRunResponse = Type.Object({
  ...RunReference,
  forkedFromRunId: Type.Union([Type.Integer(), Type.Null()]),
  forkStep: Type.Union([Type.Integer(), Type.Null()]),
});

export const ResumeRunBody = Type.Object(
  {
    runId: Nullable(RunId),
    displayId: Nullable(Type.String({ minLength: 1, maxLength: 300 })),
    externalId: Nullable(Type.String({ minLength: 1, maxLength: 255 })),
    projectName: Nullable(ProjectName),
  },
  { additionalProperties: false },
);
export const ResumeRunResponse = Type.Object(RunReference);

export const StatusUpdateBody = Type.Object(
  {
    runId: RunId,
    status: RunStatus,
    statusMetadata: Nullable(JsonText),
    loggerSettings: Nullable(JsonText),
    statusUpdated: Nullable(EpochMs),
  },
  { additionalProperties: false },
);
export const StatusUpdateResponse = Type.Object({
  success: Type.Boolean(),
  applied: Type.Boolean({ description: "false when terminal-status precedence ignored the write." }),
});

export const StatusHistoryResponse = Type.Object({
  runId: Type.Integer(),
  events: Type.Array(
    Type.Object({
      id: Type.String(),
      runId: Type.Integer(),
      fromStatus: Type.Union([Type.String(), Type.Null()]),
      toStatus: Type.String(),
      source: Type.String({ description: "api, resume or stale" }),
      metadata: AnyJson,
      actorId: Type.Union([Type.String(), Type.Null()]),
      apiKeyId: Type.Union([Type.String(), Type.Null()]),
      createdAt: Timestamp,
    }),
  ),
});

export const TagsBody = Type.Object({ runId: RunId, tags: Tags }, { additionalProperties: false });
export const NotesBody = Type.Object(
  { runId: RunId, notes: Type.Union([Type.String({ maxLength: 1000 }), Type.Null()]) },
  { additionalProperties: false },
);
export const ConfigBody = Type.Object({ runId: RunId, config: JsonText }, { additionalProperties: false });
export const LogNameBody = Type.Object(
  {
    runId: RunId,
    logName: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 10_000 }),
    logType: Type.Enum(LOG_TYPES),
  },
  { additionalProperties: false },
);

const ModelGraphNode = Type.Object({
  type: Type.String(),
  depth: Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }),
  order: Type.Optional(Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })),
  label: Type.Optional(Type.String()),
  node_id: Type.Optional(Type.String()),
  node_type: Type.Optional(Type.Enum(["MODULE", "UNKNOWN", "CONTAINER", "IO"])),
  inst_id: Type.Optional(Type.String()),
  args: Type.Optional(Type.Array(AnyJson)),
  kwargs: Type.Optional(Type.Record(Type.String(), AnyJson)),
  params: Type.Optional(Type.Record(Type.String(), Type.Array(Type.Number()))),
  edges: Type.Optional(Type.Array(Type.Array(Type.String()))),
});
export const ModelGraph = Type.Object({ format: Type.String(), nodes: Type.Record(Type.String(), ModelGraphNode) });
export const ModelGraphBody = Type.Object({ runId: RunId, graph: ModelGraph }, { additionalProperties: false });
export const ModelGraphResponse = Type.Object({ runId: Type.Integer(), graph: Type.Union([ModelGraph, Type.Null()]) });

export const TriggerResponse = Type.Object({ status: RunStatus, triggers: Type.Array(AnyJson) });

const Alert = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 1000 }),
  body: Type.String({ maxLength: 100_000 }),
  level: Type.String({ minLength: 1, maxLength: 32 }),
  timestamp: Nullable(EpochMs),
});
export const AlertBody = Type.Object({ runId: RunId, alert: Alert }, { additionalProperties: false });
export const AlertsResponse = Type.Object({
  alerts: Type.Array(
    Type.Object({
      id: Type.Integer(),
      title: Type.String(),
      body: Type.String(),
      level: Type.String(),
      timestamp: NullableTimestamp,
      createdAt: Timestamp,
    }),
  ),
});

const LogNameObject = Type.Object({
  logName: Type.String(),
  logType: Type.String(),
  logGroup: Type.Union([Type.String(), Type.Null()]),
});

const runDetailsFields = {
  id: Type.Integer(),
  name: Type.String(),
  number: Type.Union([Type.Integer(), Type.Null()]),
  displayId: Type.Union([Type.String(), Type.Null()]),
  status: RunStatus,
  tags: Type.Array(Type.String()),
  notes: Type.Union([Type.String(), Type.Null()]),
  config: AnyJson,
  systemMetadata: AnyJson,
  loggerSettings: AnyJson,
  statusMetadata: AnyJson,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  statusUpdated: NullableTimestamp,
  projectName: Type.String(),
  externalId: Type.Union([Type.String(), Type.Null()]),
  logNames: Type.Array(LogNameObject),
};

export const RunDetails = Type.Object({
  ...runDetailsFields,
  forkedFromRunId: Type.Union([Type.Integer(), Type.Null()]),
  forkStep: Type.Union([Type.Integer(), Type.Null()]),
  /** Our addition: the runs forked from this one, so the run page can show the whole lineage. */
  forkChildren: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      displayId: Type.Union([Type.String(), Type.Null()]),
      status: RunStatus,
      forkStep: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
});
export const RunDetailsByDisplayId = Type.Object(runDetailsFields);

export const DisplayIdParams = Type.Object({ displayId: Type.String({ minLength: 1, maxLength: 300 }) });
export const DisplayIdQuery = Type.Object({ projectName: Type.Optional(ProjectName) });
export const NumericRunIdParams = Type.Object({ runId: RunId });
export const MlflowRunIdParams = Type.Object({
  mlflowRunId: Type.String({
    pattern: "^[0-9a-f]{32}$",
    description: "An MLflow run ID (32 lowercase hex digits), as MLflow's client prints it.",
  }),
});
export const EncodedRunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 64, examples: [encodeRunId(1)] }) });
export const DecodedRunIdResponse = Type.Object({ runId: Type.Integer() });
