import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { createRunTags, forkOf } from "../../domain/run-create.js";
import { parseJsonText } from "../../domain/json-text.js";
import type { Json } from "../../domain/merge.js";
import type { RouteDeps } from "../deps.js";
import type { CreateRunInput } from "../../store/store.js";
import { actorOf } from "../auth.js";
import { toRunReference } from "../presenters.js";
import { RunIdBody, STANDARD_ERRORS, SuccessResponse } from "../schemas/common.js";
import {
  AlertBody,
  ConfigBody,
  CreateRunBody,
  CreateRunResponse,
  LogNameBody,
  ModelGraphBody,
  NotesBody,
  ResumeRunBody,
  ResumeRunResponse,
  StatusUpdateBody,
  StatusUpdateResponse,
  TagsBody,
  TriggerResponse,
} from "../schemas/runs.js";
import type { Static } from "typebox";
import { baseUrl } from "../urls.js";

const tags = ["runs"];

/** Every write to a run: create, resume, status, tags, notes, config, log names, graph, heartbeat, alerts. */
export function runWriteRoutes({ clock, config, services: { runs } }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // These routes take JSON only (docs/semantics.md, Responses and errors: a wrong content type is a 415). Fastify parses
    // text/plain by default, which made such a body a confusing 400 "body: must be object".
    app.removeContentTypeParser("text/plain");

    const success = { success: true } as const;

    app.post(
      "/api/runs/create",
      { schema: { tags, body: CreateRunBody, response: { 200: CreateRunResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const now = clock.now();
        const { run, resumed } = await runs.create(request.auth.orgId, toCreateRunInput(request.body), actorOf(request.auth), now);
        return toRunReference(run, request.auth.orgSlug, baseUrl(request, config.publicUrl), resumed);
      },
    );

    app.post(
      "/api/runs/resume",
      { schema: { tags, body: ResumeRunBody, response: { 200: ResumeRunResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const run = await runs.resume(request.auth.orgId, request.body, actorOf(request.auth));
        return toRunReference(run, request.auth.orgSlug, baseUrl(request, config.publicUrl), true);
      },
    );

    app.post(
      "/api/runs/status/update",
      { schema: { tags, body: StatusUpdateBody, response: { 200: StatusUpdateResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, status, statusUpdated } = request.body;
        const update = {
          status,
          statusUpdated: statusUpdated ?? undefined,
          statusMetadata: parseJsonText(request.body.statusMetadata, "statusMetadata"),
          loggerSettings: parseJsonText(request.body.loggerSettings, "loggerSettings"),
          source: "api" as const,
        };
        const result = await runs.updateStatus(request.auth.orgId, runId, update, actorOf(request.auth));
        return { success: true, applied: result.applied };
      },
    );

    app.post(
      "/api/runs/tags/update",
      { schema: { tags, body: TagsBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        await runs.setTags(request.auth.orgId, request.body.runId, request.body.tags);
        return success;
      },
    );

    app.post(
      "/api/runs/notes/update",
      { schema: { tags, body: NotesBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        await runs.setNotes(request.auth.orgId, request.body.runId, request.body.notes);
        return success;
      },
    );

    app.post(
      "/api/runs/config/update",
      { schema: { tags, body: ConfigBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        await runs.mergeConfig(request.auth.orgId, request.body.runId, parseJsonText(request.body.config, "config"));
        return success;
      },
    );

    app.post(
      "/api/runs/logName/add",
      { schema: { tags, body: LogNameBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, logName, logType } = request.body;
        await runs.addLogNames(request.auth.orgId, runId, logName, logType);
        return success;
      },
    );

    app.post(
      "/api/runs/modelGraph/create",
      { schema: { tags, body: ModelGraphBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        await runs.setModelGraph(request.auth.orgId, request.body.runId, request.body.graph as unknown as Json);
        return success;
      },
    );

    app.post(
      "/api/runs/trigger",
      { schema: { tags, body: RunIdBody, response: { 200: TriggerResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        return { status: await runs.heartbeat(request.auth.orgId, request.body.runId), triggers: [] };
      },
    );

    app.post(
      "/api/runs/alert",
      { schema: { tags, body: AlertBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, alert } = request.body;
        await runs.alert(request.auth.orgId, runId, {
          title: alert.title,
          body: alert.body,
          level: alert.level,
          timestamp: alert.timestamp ?? null,
        });
        return success;
      },
    );
  };
}

/** A create request as the store's input: the run's tags and fork by domain/run-create.ts, JSON fields parsed. */
function toCreateRunInput(body: Static<typeof CreateRunBody>): Omit<CreateRunInput, "now"> {
  const fork = forkOf(body);
  return {
    projectName: body.projectName,
    name: body.runName,
    externalId: body.externalId ?? undefined,
    tags: createRunTags(body.tags),
    config: parseJsonText(body.config, "config"),
    systemMetadata: parseJsonText(body.systemMetadata, "systemMetadata"),
    loggerSettings: parseJsonText(body.loggerSettings, "loggerSettings"),
    createdAt: body.createdAt ?? undefined,
    updatedAt: body.updatedAt ?? undefined,
    fork,
  };
}
