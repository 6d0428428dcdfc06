import { Type } from "typebox";
import { Timestamp } from "./common.js";

export const ProjectsResponse = Type.Object({
  projects: Type.Array(
    Type.Object({
      id: Type.Integer(),
      name: Type.String(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
      runCount: Type.Integer(),
    }),
  ),
});

export const ValidateKeyResponse = Type.Object({
  valid: Type.Boolean(),
  organization: Type.Object({ id: Type.String(), slug: Type.String() }),
  user: Type.Object({ id: Type.String() }),
});

export const SlugResponse = Type.Object({ organization: Type.Object({ slug: Type.String() }) });
