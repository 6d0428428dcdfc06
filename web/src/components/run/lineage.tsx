import { Link, runPath } from "../../router.tsx";
import type { RunDetails } from "../../types.ts";
import { StatusBadge } from "../common.tsx";

/** Where a run was forked from (and at which step), and the runs forked from it. */
export function Lineage({ run }: { run: RunDetails }) {
  return (
    <div class="lineage" data-testid="lineage">
      <h2>Parent</h2>
      {run.forkedFromRunId === null ? (
        <p class="muted">Not a fork.</p>
      ) : (
        <p>
          Forked from <Link href={runPath(run.projectName, run.forkedFromRunId)}>run {run.forkedFromRunId}</Link> at step {run.forkStep};
          its charts include the parent's points up to that step.
        </p>
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
