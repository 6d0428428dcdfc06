import { api } from "../../api.ts";
import { useAsync } from "../../hooks.ts";
import { formatNumber } from "../../lib/format.ts";
import { modelTree, type GraphNode } from "../../lib/tree.ts";
import { ErrorNote, Loading } from "../common.tsx";

function Node({ node, depth }: { node: GraphNode; depth: number }) {
  const label = (
    <>
      <span class="key">{node.label}</span> <span class="muted">{node.type}</span>
      {node.params > 0 && <span class="muted"> · {formatNumber(node.params)} params</span>}
    </>
  );
  if (node.children.length === 0) return <li>{label}</li>;
  return (
    <li>
      <details open={depth < 2}>
        <summary>{label}</summary>
        <ul>
          {node.children.map((child) => (
            <Node key={child.key} node={child} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/** The logged model graph as a collapsible tree of modules. */
export function ModelGraphTree({ runId }: { runId: number }) {
  const graph = useAsync(() => api.modelGraph(runId), [runId]);
  if (graph.error) return <ErrorNote error={graph.error} />;
  if (!graph.data) return <Loading what="model graph" />;
  if (!graph.data.graph) return <p class="muted">This run has no model graph.</p>;
  const roots = modelTree(graph.data.graph.nodes);
  return (
    <div data-testid="model-graph">
      <p class="muted">Format: {graph.data.graph.format}</p>
      <ul class="tree">
        {roots.map((node) => (
          <Node key={node.key} node={node} depth={0} />
        ))}
      </ul>
    </div>
  );
}
