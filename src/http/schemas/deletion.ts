import { Type } from "typebox";
import { MAX_RETENTION_DAYS, MAX_RUNS_PER_CHANGE } from "../../domain/deletion.js";
import { ProjectName, RunId, RunStatus, Timestamp } from "./common.js";

/** Deletion, the trash and retention (docs/api.md, "Deletion and retention"). */

export const RunIdsBody = Type.Object(
  { runIds: Type.Array(RunId, { minItems: 1, maxItems: MAX_RUNS_PER_CHANGE, description: `One to ${MAX_RUNS_PER_CHANGE} run IDs.` }) },
  { additionalProperties: false },
);

export const DeleteRunsResponse = Type.Object({
  deleted: Type.Array(Type.Integer()),
  purgeAfter: Timestamp,
});

export const RestoreRunsResponse = Type.Object({ restored: Type.Array(Type.Integer()) });

export const ProjectNameBody = Type.Object({ projectName: ProjectName }, { additionalProperties: false });

export const DeleteProjectResponse = Type.Object({ projectName: Type.String(), runCount: Type.Integer(), purgeAfter: Timestamp });
export const RestoreProjectResponse = Type.Object({ projectName: Type.String(), runCount: Type.Integer() });

export const TrashQuery = Type.Object(
  {
    projectName: Type.Optional(ProjectName),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
  },
  { additionalProperties: false },
);

export const TrashResponse = Type.Object({
  runs: Type.Array(
    Type.Object({
      runId: Type.Integer(),
      projectName: Type.String(),
      name: Type.String(),
      displayId: Type.String(),
      status: RunStatus,
      deletedAt: Timestamp,
      purgeAfter: Timestamp,
      projectDeleted: Type.Boolean({ description: "Deleted with its project: restore the project to restore it." }),
    }),
    { description: "A page of the deleted runs, most recently deleted first." },
  ),
  total: Type.Integer({ description: "Deleted runs in all (of the project, when named)." }),
  projects: Type.Array(Type.Object({ projectName: Type.String(), runCount: Type.Integer(), deletedAt: Timestamp, purgeAfter: Timestamp }), {
    description: "The organization's deleted projects (the named one only, when named).",
  }),
});

const RetentionPolicy = Type.Object(
  {
    maxAgeDays: Type.Integer({
      minimum: 1,
      maximum: MAX_RETENTION_DAYS,
      description: "Runs finished longer ago than this many days are deleted.",
    }),
    excludeTag: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], {
        description: "Runs with this tag are kept (none when absent or null).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const RetentionQuery = Type.Object({ projectName: ProjectName }, { additionalProperties: false });

export const PutRetentionBody = Type.Object(
  { projectName: ProjectName, policy: Type.Union([RetentionPolicy, Type.Null()], { description: "null removes the policy." }) },
  { additionalProperties: false },
);

export const RetentionResponse = Type.Object({
  projectName: Type.String(),
  policy: Type.Union([
    Type.Object({ maxAgeDays: Type.Integer(), excludeTag: Type.Union([Type.String(), Type.Null()]), updatedAt: Timestamp }),
    Type.Null(),
  ]),
});

export const RetentionDryRunResponse = Type.Object({
  projectName: Type.String(),
  total: Type.Integer({ description: "How many runs the policy would delete now." }),
  runs: Type.Array(
    Type.Object({
      runId: Type.Integer(),
      name: Type.String(),
      displayId: Type.String(),
      status: RunStatus,
      finishedAt: Timestamp,
      tags: Type.Array(Type.String()),
    }),
    { description: "The first 1,000 of them, by ID." },
  ),
});
