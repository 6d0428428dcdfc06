import { Type } from "typebox";
import { MAX_VIEW_NAME_LENGTH, MAX_VIEW_STATE_BYTES } from "../../domain/saved-views.js";
import { ProjectName, Timestamp } from "./common.js";

/** Saved views of a project's page (docs/api.md, "Saved views"). */

// Checked again, trimmed, by domain/saved-views.ts (whitespace alone is not a name).
const ViewName = Type.String({ minLength: 1, maxLength: MAX_VIEW_NAME_LENGTH });
const ViewState = Type.Object(
  {},
  {
    additionalProperties: true,
    description: `The page's state as the UI wrote it: any JSON object of at most ${MAX_VIEW_STATE_BYTES} bytes (413 beyond). The server keeps it as given.`,
  },
);

export const ViewIdParams = Type.Object({ viewId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const ListViewsQuery = Type.Object(
  {
    projectName: ProjectName,
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 100 }),
    offset: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }),
  },
  { additionalProperties: false },
);

export const CreateViewBody = Type.Object({ projectName: ProjectName, name: ViewName, state: ViewState }, { additionalProperties: false });

export const UpdateViewBody = Type.Object(
  { name: Type.Optional(ViewName), state: Type.Optional(ViewState) },
  { additionalProperties: false, minProperties: 1, description: "A new name, a new state, or both." },
);

export const ViewSummary = Type.Object({
  id: Type.Integer(),
  projectName: Type.String(),
  name: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ViewResponse = Type.Object({
  id: Type.Integer(),
  projectName: Type.String(),
  name: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  state: ViewState,
});

export const ViewListResponse = Type.Object({
  views: Type.Array(ViewSummary, { description: "A page of the project's views, newest first, without their states." }),
});
