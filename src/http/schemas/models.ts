import { Type } from "typebox";
import { RunId, Timestamp } from "./common.js";

/** The UI's reads of MLflow's model registry and of MLflow 3's logged models (docs/api.md, "Models"). */

const KeyValue = Type.Object({ key: Type.String(), value: Type.String() });
// Longer than any name the registry takes (its own check is in domain/mlflow/registry.ts, which the UI's types must not reach).
const ModelName = Type.String({ minLength: 1, maxLength: 1000 });

/** A page of at most 200 items: every list of these routes is bounded. */
const Page = {
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
};

export const ModelListQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({ maxLength: 256, description: "Keeps the models whose name contains this text (case-insensitive)." }),
    ),
    ...Page,
  },
  { additionalProperties: false },
);

export const ModelNameParams = Type.Object({ name: ModelName });
export const ModelVersionsQuery = Type.Object(Page, { additionalProperties: false });
export const ModelsOfRunParams = Type.Object({ runId: RunId });
export const ModelsOfRunQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 100, description: "At most this many logged models and this many versions." }),
  },
  { additionalProperties: false },
);

/** A Stepwise run behind an MLflow run ID; null when the organization has no such run. */
const SourceRun = Type.Union([
  Type.Object({
    runId: Type.Integer(),
    projectName: Type.String(),
    displayId: Type.String(),
    name: Type.String(),
  }),
  Type.Null(),
]);

export const ModelSummary = Type.Object({
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(KeyValue),
  aliases: Type.Array(Type.Object({ alias: Type.String(), version: Type.Integer() })),
  latestVersion: Type.Union([Type.Integer(), Type.Null()], { description: "The highest version it has; null when it has none." }),
  versionCount: Type.Integer(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ModelListResponse = Type.Object({
  models: Type.Array(ModelSummary),
  total: Type.Integer({ description: "Every matching model, ignoring limit and offset." }),
});

export const ModelVersionItem = Type.Object({
  modelName: Type.String(),
  version: Type.Integer(),
  aliases: Type.Array(Type.String()),
  stage: Type.String({ description: "MLflow's stage: None, Staging, Production or Archived." }),
  status: Type.String(),
  description: Type.String(),
  tags: Type.Array(KeyValue),
  source: Type.String(),
  mlflowRunId: Type.String({ description: 'The MLflow run ID the version was registered from ("" when none).' }),
  run: SourceRun,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ModelResponse = Type.Object({
  model: ModelSummary,
  versions: Type.Array(ModelVersionItem, { description: "One page of its versions, newest first." }),
});

export const LoggedModelItem = Type.Object({
  modelId: Type.String(),
  name: Type.String(),
  modelType: Type.Union([Type.String(), Type.Null()]),
  status: Type.String({ description: "PENDING, READY or FAILED." }),
  params: Type.Array(KeyValue),
  tags: Type.Array(KeyValue),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ModelsOfRunResponse = Type.Object({
  runId: Type.Integer(),
  loggedModels: Type.Array(LoggedModelItem, { description: "MLflow 3's logged models whose source run it is, newest first." }),
  versions: Type.Array(ModelVersionItem, { description: "Registered model versions registered from the run, newest first." }),
});
