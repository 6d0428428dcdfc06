import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { invalidInput, runNotFound } from "../../domain/errors.js";
import { parseJsonText } from "../../domain/json-text.js";
import type { Json } from "../../domain/merge.js";
import type { RouteDeps } from "../deps.js";
import { resolveRunReference } from "../../services/run-lookup.js";
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
export function runWriteRoutes({ store, clock, config }: RouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    // These routes take JSON only (docs/semantics.md, Responses and errors: a wrong content type is a 415). Fastify parses
    // text/plain by default, which made such a body a confusing 400 "body: must be object".
    app.removeContentTypeParser("text/plain");

    const ok = (found: boolean, runId: number) => {
      if (!found) throw runNotFound(runId);
      return { success: true };
    };

    app.post(
      "/api/runs/create",
      { schema: { tags, body: CreateRunBody, response: { 200: CreateRunResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const input = toCreateRunInput(request.body, clock.now());
        const { run, resumed } = await store.createRun(request.auth.orgId, input, actorOf(request.auth));
        return toRunReference(run, request.auth.orgSlug, baseUrl(request, config.publicUrl), resumed);
      },
    );

    app.post(
      "/api/runs/resume",
      { schema: { tags, body: ResumeRunBody, response: { 200: ResumeRunResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const found = await resolveRunReference(store, request.auth.orgId, request.body);
        const run = await store.resumeRun(request.auth.orgId, found.id, clock.now(), actorOf(request.auth));
        if (!run) throw runNotFound(found.id);
        return toRunReference(run, request.auth.orgSlug, baseUrl(request, config.publicUrl), true);
      },
    );

    app.post(
      "/api/runs/status/update",
      { schema: { tags, body: StatusUpdateBody, response: { 200: StatusUpdateResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, status, statusUpdated } = request.body;
        const result = await store.updateRunStatus(
          request.auth.orgId,
          runId,
          {
            status,
            statusUpdated: statusUpdated ?? undefined,
            statusMetadata: parseJsonText(request.body.statusMetadata, "statusMetadata"),
            loggerSettings: parseJsonText(request.body.loggerSettings, "loggerSettings"),
            source: "api",
            now: clock.now(),
          },
          actorOf(request.auth),
        );
        if (!result) throw runNotFound(runId);
        return { success: true, applied: result.applied };
      },
    );

    app.post(
      "/api/runs/tags/update",
      { schema: { tags, body: TagsBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId } = request.body;
        return ok(await store.updateRunTags(request.auth.orgId, runId, request.body.tags, clock.now()), runId);
      },
    );

    app.post(
      "/api/runs/notes/update",
      { schema: { tags, body: NotesBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, notes } = request.body;
        return ok(await store.updateRunNotes(request.auth.orgId, runId, notes, clock.now()), runId);
      },
    );

    app.post(
      "/api/runs/config/update",
      { schema: { tags, body: ConfigBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId } = request.body;
        const patch = parseJsonText(request.body.config, "config");
        if (patch === undefined) throw invalidInput("config: must be JSON text of a value, not empty or null");
        return ok(await store.mergeRunConfig(request.auth.orgId, runId, patch, clock.now()), runId);
      },
    );

    app.post(
      "/api/runs/logName/add",
      { schema: { tags, body: LogNameBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, logName, logType } = request.body;
        return ok(await store.addLogNames(request.auth.orgId, runId, logName, logType, clock.now()), runId);
      },
    );

    app.post(
      "/api/runs/modelGraph/create",
      { schema: { tags, body: ModelGraphBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, graph } = request.body;
        return ok(await store.setModelGraph(request.auth.orgId, runId, graph as unknown as Json, clock.now()), runId);
      },
    );

    app.post(
      "/api/runs/trigger",
      { schema: { tags, body: RunIdBody, response: { 200: TriggerResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const status = await store.recordHeartbeat(request.auth.orgId, request.body.runId, clock.now());
        if (!status) throw runNotFound(request.body.runId);
        return { status, triggers: [] };
      },
    );

    app.post(
      "/api/runs/alert",
      { schema: { tags, body: AlertBody, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => {
        const { runId, alert } = request.body;
        const stored = { title: alert.title, body: alert.body, level: alert.level, timestamp: alert.timestamp ?? null };
        return ok(await store.createAlert(request.auth.orgId, runId, stored, clock.now()), runId);
      },
    );
  };
}

function toCreateRunInput(body: Static<typeof CreateRunBody>, now: number): CreateRunInput {
  const hasForkRun = body.forkRunId != null;
  if (hasForkRun !== (body.forkStep != null)) {
    throw invalidInput(hasForkRun ? "forkStep: is required with forkRunId" : "forkRunId: is required with forkStep");
  }
  return {
    projectName: body.projectName,
    name: body.runName,
    externalId: body.externalId ?? undefined,
    tags: [...new Set(body.tags ?? [])],
    config: parseJsonText(body.config, "config"),
    systemMetadata: parseJsonText(body.systemMetadata, "systemMetadata"),
    loggerSettings: parseJsonText(body.loggerSettings, "loggerSettings"),
    createdAt: body.createdAt ?? undefined,
    updatedAt: body.updatedAt ?? undefined,
    fork: hasForkRun
      ? { runId: body.forkRunId!, step: body.forkStep!, inheritConfig: body.inheritConfig ?? true, inheritTags: body.inheritTags ?? false }
      : undefined,
    now,
  };
}
