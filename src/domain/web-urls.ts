/** Links to the web UI's pages, under a base URL (the public URL, or the request's scheme and Host). */

/** The web UI page of a run. */
export function runUrl(base: string, projectName: string, runId: number): string {
  return `${base}/projects/${encodeURIComponent(projectName)}/runs/${runId}`;
}

/** The web UI comparison of runs of one project. */
export function comparisonUrl(base: string, projectName: string, runIds: number[]): string {
  return `${base}/projects/${encodeURIComponent(projectName)}/compare?runIds=${runIds.join(",")}`;
}
