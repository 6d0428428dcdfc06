import { Type } from "typebox";
import { RoleSchema, UserItem } from "./sessions.js";
import { Timestamp } from "./common.js";

export const ProjectItem = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  runCount: Type.Integer(),
});

export const ProjectsResponse = Type.Object({ projects: Type.Array(ProjectItem) });

export const MlflowExperimentIdParams = Type.Object({
  experimentId: Type.String({
    pattern: "^(0|[1-9]\\d{0,15})$",
    description: "An MLflow experiment ID: \"0\" is the organization's default experiment, any other the project's ID.",
  }),
});

export const ValidateKeyResponse = Type.Object({
  valid: Type.Boolean(),
  organization: Type.Object({ id: Type.String(), slug: Type.String() }),
  user: UserItem,
  role: RoleSchema,
});

export const SlugResponse = Type.Object({ organization: Type.Object({ slug: Type.String() }) });
