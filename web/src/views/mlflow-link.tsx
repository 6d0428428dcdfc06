// A link MLflow's client printed: resolves its IDs to Stepwise's project or run page and goes there.

import { useEffect } from "preact/hooks";
import { api } from "../api.ts";
import { Loading, PageTitle } from "../components/common.tsx";
import { useServerState } from "../hooks.ts";
import type { MlflowLink } from "../lib/mlflow-links.ts";
import { Link, navigate, projectPath, runPath } from "../router.tsx";

/** Where an MLflow link leads: a run link to its run's page, an experiment link to its project's runs. */
async function pageOf(link: MlflowLink): Promise<string> {
  if (link.runId !== undefined) {
    const run = await api.runByMlflowId(link.runId);
    return runPath(run.projectName, run.id);
  }
  return projectPath((await api.projectByMlflowId(link.experimentId)).name);
}

export function MlflowLinkPage({ link }: { link: MlflowLink }) {
  const page = useServerState(["mlflowLink", link.experimentId, link.runId], () => pageOf(link));
  // The MLflow link is replaced in the history: Back leaves the page rather than coming back here.
  useEffect(() => {
    if (page.data) navigate(page.data, { replace: true });
  }, [page.data]);
  const what = link.runId === undefined ? `MLflow experiment ${link.experimentId}` : `MLflow run ${link.runId}`;
  return (
    <section>
      <PageTitle title={what} />
      {page.error ? (
        <p class="error" role="alert">
          Cannot open {what}: {page.error}. <Link href="/projects">Go to projects</Link>
        </p>
      ) : (
        <Loading what={what} />
      )}
    </section>
  );
}
