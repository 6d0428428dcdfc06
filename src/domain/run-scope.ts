/**
 * A run that a request names together with its project is that run only when it is in that
 * project: a run of another project (or organization, which the store already leaves out) reads
 * exactly like an unknown run, a 404 naming the run (docs/semantics.md, Reads). `projectNames`
 * are the names the request can mean (one, or the readings of an ingest header); none narrows nothing.
 */
export function inNamedProject<R extends { projectName: string }>(
  run: R | undefined,
  projectNames: string | readonly string[] | undefined,
): R | undefined {
  if (!run || projectNames === undefined) return run;
  return (typeof projectNames === "string" ? run.projectName === projectNames : projectNames.includes(run.projectName)) ? run : undefined;
}
