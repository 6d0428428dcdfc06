import type { FastifyRequest } from "fastify";
import { invalidInput, runNotFound } from "../domain/errors.js";
import type { Run, Store } from "../store/store.js";

/**
 * The run an ingest request writes to, named by `X-Run-Id` and `X-Project-Name` (decisions §7).
 * A run of another organization or another project reads exactly like an unknown run: 404.
 */
export async function resolveIngestRun(store: Store, request: FastifyRequest): Promise<Run> {
  const rawRunId = headerValue(request, "x-run-id");
  const projectName = headerValue(request, "x-project-name");
  if (rawRunId === undefined || !/^\d{1,15}$/.test(rawRunId)) throw invalidInput("X-Run-Id: header must be a numeric run ID");
  if (projectName === undefined || projectName === "") throw invalidInput("X-Project-Name: header is required");
  const runId = Number(rawRunId);
  const run = await store.getRun(request.auth.orgId, runId);
  if (!run || run.projectName !== projectName) throw runNotFound(runId);
  return run;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value?.trim();
}
