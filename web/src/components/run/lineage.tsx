import { api } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import { Link, runPath } from "../../router.tsx";
import type { RunDetails } from "../../types.ts";
import { ErrorNote, Loading, StatusBadge } from "../common.tsx";

/** How many ancestors the chain shows; the server refuses deeper lineages at fork time (100). */
const MAX_ANCESTORS = 100;

/** The run's ancestors, oldest first: its parent's details, then the grandparent's, ... (one read each). */
async function ancestorsOf(run: RunDetails): Promise<RunDetails[]> {
  const chain: RunDetails[] = [];
  for (let next = run.forkedFromRunId; next !== null && chain.length < MAX_ANCESTORS; ) {
    const parent: RunDetails = await api.run(next);
    chain.unshift(parent);
    next = parent.forkedFromRunId;
  }
  return chain;
}

/** Where a run was forked from: the whole chain of forks by name, each with the step it was forked at, and the runs forked from it. */
export function Lineage({ run }: { run: RunDetails }) {
  const ancestors = useServerState(["lineage", run.id, run.forkedFromRunId], () => ancestorsOf(run));
  return (
    <div class="lineage" data-testid="lineage">
      <h2>Forked from</h2>
      {run.forkedFromRunId === null ? (
        <p class="muted">Not a fork.</p>
      ) : ancestors.error ? (
        <ErrorNote error={ancestors.error} />
      ) : !ancestors.data ? (
        <Loading what="lineage" />
      ) : (
        <>
          <ol class="lineage-chain" data-testid="lineage-chain">
            {[...ancestors.data, run].map((link, i, chain) => (
              <li key={link.id}>
                {link.id === run.id ? <strong>{link.name}</strong> : <Link href={runPath(link.projectName, link.id)}>{link.name}</Link>}{" "}
                <span class="mono">{link.displayId}</span> <StatusBadge status={link.status} />
                {i > 0 && (
                  <span class="muted">
                    {" "}
                    · forked from {chain[i - 1]!.name} at step {link.forkStep}
                  </span>
                )}
              </li>
            ))}
          </ol>
          <p class="muted">Its charts include each ancestor's points up to the step the next run was forked at.</p>
        </>
      )}
      <h2>Forks of this run</h2>
      {run.forkChildren.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ul>
          {run.forkChildren.map((child) => (
            <li key={child.id}>
              <Link href={runPath(run.projectName, child.id)}>{child.name}</Link> <span class="mono">{child.displayId}</span>{" "}
              <StatusBadge status={child.status} /> at step {child.forkStep}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
