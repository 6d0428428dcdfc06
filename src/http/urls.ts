import type { FastifyRequest } from "fastify";

/**
 * Absolute URLs start with the configured public URL, else with the scheme and Host of the
 * request (decisions §1), so links work behind a proxy that sets Host.
 */
export function baseUrl(request: FastifyRequest, publicUrl: string): string {
  return publicUrl || `${request.protocol}://${request.host}`;
}

/** The web UI page of a run. */
export function runUrl(base: string, projectName: string, runId: number): string {
  return `${base}/projects/${encodeURIComponent(projectName)}/runs/${runId}`;
}

/** The web UI comparison of runs of one project. */
export function comparisonUrl(base: string, projectName: string, runIds: number[]): string {
  return `${base}/projects/${encodeURIComponent(projectName)}/compare?runIds=${runIds.join(",")}`;
}
