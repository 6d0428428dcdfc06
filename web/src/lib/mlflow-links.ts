// The links MLflow's client prints, and which Stepwise page each opens. With MLFLOW_TRACKING_URI set
// to Stepwise, `mlflow.start_run()` prints "View run <name> at: <host>/#/experiments/<experiment
// ID>/runs/<run ID>" and "View experiment at: <host>/#/experiments/<experiment ID>" (MLflow's own UI
// routes by the URL's hash); Stepwise's UI opens the project or run page they name.

export interface MlflowLink {
  experimentId: string;
  /** The MLflow run ID (32 hex digits) of a run link; absent for an experiment link. */
  runId?: string;
}

/**
 * The MLflow link a URL's hash holds, or undefined when it holds none. Only the IDs are read: what
 * follows them (MLflow 3's `?workspace=`, a sub-page of its UI) is left out, and so is a full stop a
 * terminal took into the link (MLflow 2 ends the sentence with one). The server checks the IDs.
 */
export function parseMlflowLink(hash: string): MlflowLink | undefined {
  const match = /^#\/experiments\/([^/?#]+)(?:\/runs\/([^/?#]+))?/.exec(hash);
  if (!match) return undefined;
  const [, experimentId, runId] = match;
  const trim = (id: string) => id.replace(/\.$/, "");
  return runId === undefined ? { experimentId: trim(experimentId!) } : { experimentId: experimentId!, runId: trim(runId) };
}
