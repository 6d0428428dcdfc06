import { DomainError } from "../../domain/errors.js";
import { presentUser } from "../presenters.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RouteDeps } from "../deps.js";
import { toIso } from "../../domain/time.js";
import { STANDARD_ERRORS } from "../schemas/common.js";
import { MlflowExperimentIdParams, ProjectItem, ProjectsResponse, SlugResponse, ValidateKeyResponse } from "../schemas/projects.js";
import { projectOfExperimentId } from "../../services/mlflow-links.js";
import type { Project } from "../../store/store.js";

const projectItem = (p: Project) => ({
  id: p.id,
  name: p.name,
  createdAt: toIso(p.createdAt),
  updatedAt: toIso(p.updatedAt),
  runCount: p.runCount,
});

/** The organization of the key: its projects, and the key checks clients use to log in. */
export function projectRoutes({ store }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      "/api/runs/projects",
      { schema: { tags: ["projects"], response: { 200: ProjectsResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const projects = await store.listProjects(request.auth.orgId);
        return { projects: projects.map(projectItem) };
      },
    );

    app.get(
      "/api/runs/projects/by-mlflow-id/:experimentId",
      {
        schema: {
          tags: ["projects"],
          params: MlflowExperimentIdParams,
          response: { 200: ProjectItem, ...STANDARD_ERRORS },
        },
      },
      async (request) => projectItem(await projectOfExperimentId(store, request.auth.orgId, request.params.experimentId)),
    );

    app.get(
      "/api/runs/auth/validate",
      { schema: { tags: ["auth"], response: { 200: ValidateKeyResponse, 401: STANDARD_ERRORS[401] } } },
      async (request) => {
        const { orgId, orgSlug, userId, role } = request.auth;
        const user = await store.getUser(userId);
        if (!user) throw new DomainError("INVALID_API_KEY", "the key's user no longer exists");
        return { valid: true, organization: { id: orgId, slug: orgSlug }, user: presentUser(user), role };
      },
    );

    app.post(
      "/api/slug",
      { config: { role: "viewer" }, schema: { tags: ["auth"], response: { 200: SlugResponse, 401: STANDARD_ERRORS[401] } } },
      async (request) => {
        return { organization: { slug: request.auth.orgSlug } };
      },
    );
  };
}
