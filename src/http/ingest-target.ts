import type { FastifyRequest } from "fastify";
import { invalidInput, runNotFound } from "../domain/errors.js";
import { inNamedProject } from "../domain/run-scope.js";
import type { Store } from "../store/store.js";

/**
 * The run an ingest request writes to, named by `X-Run-Id` and `X-Project-Name` (docs/semantics.md, Ingest wire format).
 * A run of another organization or another project reads exactly like an unknown run: 404.
 */
export async function resolveIngestRun(store: Store, request: FastifyRequest): Promise<{ id: number }> {
  const rawRunId = headerValue(request, "x-run-id");
  const projectName = headerValue(request, "x-project-name");
  if (rawRunId === undefined || !/^\d{1,15}$/.test(rawRunId)) throw invalidInput("X-Run-Id: header must be a numeric run ID");
  if (projectName === undefined || projectName === "") throw invalidInput("X-Project-Name: header is required");
  const runId = Number(rawRunId);
  const runProject = await store.getRunProjectName(request.auth.orgId, runId);
  const run = runProject === undefined ? undefined : { projectName: runProject };
  if (!inNamedProject(run, projectNameReadings(projectName))) throw runNotFound(runId);
  return { id: runId };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The project names an `X-Project-Name` value can mean. Node reads header bytes as Latin-1, one
 * character per byte, so a name that is not Latin-1 arrives either as raw UTF-8 bytes (read back
 * as UTF-8 when they are valid UTF-8) or percent-encoded (decoded as UTF-8). The literal value
 * stays a reading too, so a project really named `a%20b` or `ü` (one Latin-1 byte) still matches.
 * The run is already named by its ID: the project name only has to agree with it.
 */
export function projectNameReadings(header: string): string[] {
  const readings = [header];
  let text = header;
  // Every character of a header value is one byte (≤ 0xFF); only a byte above 0x7F can start UTF-8.
  if (/[\u0080-\u00ff]/.test(header)) {
    try {
      text = utf8.decode(Buffer.from(header, "latin1"));
      readings.push(text);
    } catch {
      // Not UTF-8: the literal Latin-1 reading stands alone.
    }
  }
  if (text.includes("%")) {
    try {
      readings.push(decodeURIComponent(text));
    } catch {
      // A literal `%` that is no escape.
    }
  }
  return readings;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value?.trim();
}
