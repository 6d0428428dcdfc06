import { api } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import { formatNumber } from "../../lib/format.ts";
import { type GraphLayout, graphEdges, layoutGraph, NODE_HEIGHT, NODE_WIDTH } from "../../lib/graph-layout.ts";
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

/** Above this many connected nodes the diagram is not drawn (the tree still lists every module). */
const MAX_DRAWN_NODES = 1500;

/** Cuts a label to what fits a node box (the whole text shows on hover). */
const fit = (text: string, characters: number) => (text.length > characters ? `${text.slice(0, characters - 1)}…` : text);

/** The graph's edges as a layered diagram, top to bottom (lib/graph-layout.ts). */
function EdgeDiagram({ layout }: { layout: GraphLayout }) {
  return (
    <div class="graph-scroll">
      <svg
        class="model-diagram"
        data-testid="model-diagram"
        width={layout.width}
        height={layout.height}
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        role="img"
        aria-label={`Model graph: ${layout.nodes.length} nodes, ${layout.edges.length} edges`}
      >
        <defs>
          <marker id="graph-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="graph-arrow" />
          </marker>
        </defs>
        {layout.edges.map((edge) => {
          const middle = (edge.y1 + edge.y2) / 2;
          const bulge = 30 + Math.min(60, Math.abs(edge.y2 - edge.y1) / 6);
          const d = edge.side
            ? `M ${edge.x1} ${edge.y1} C ${edge.x1 + bulge} ${edge.y1}, ${edge.x2 + bulge} ${edge.y2}, ${edge.x2} ${edge.y2}`
            : `M ${edge.x1} ${edge.y1} C ${edge.x1} ${middle}, ${edge.x2} ${middle}, ${edge.x2} ${edge.y2}`;
          return (
            <path
              key={`${edge.from}\u0000${edge.to}`}
              d={d}
              class={edge.back ? "graph-edge back" : "graph-edge"}
              marker-end="url(#graph-arrow)"
              data-from={edge.from}
              data-to={edge.to}
            />
          );
        })}
        {layout.nodes.map((node) => (
          <g key={node.key} class="graph-node" data-key={node.key} transform={`translate(${node.x} ${node.y})`}>
            <title>{`${node.label} (${node.type})`}</title>
            <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={5} />
            <text x={NODE_WIDTH / 2} y={16} text-anchor="middle" class="graph-label">
              {fit(node.label, 24)}
            </text>
            <text x={NODE_WIDTH / 2} y={31} text-anchor="middle" class="graph-type">
              {fit(node.type, 26)}
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
}

/** The logged model graph: its edges as a diagram (when it has edges), and a collapsible tree of modules. */
export function ModelGraphTree({ runId }: { runId: number }) {
  const graph = useServerState(["modelGraph", runId], () => api.modelGraph(runId));
  if (graph.error) return <ErrorNote error={graph.error} />;
  if (!graph.data) return <Loading what="model graph" />;
  if (!graph.data.graph) return <p class="muted">This run has no model graph.</p>;
  const roots = modelTree(graph.data.graph.nodes);
  const edges = graphEdges(graph.data.graph.nodes);
  const layout = edges.length > 0 ? layoutGraph(graph.data.graph.nodes, edges) : undefined;
  return (
    <div data-testid="model-graph">
      <p class="muted">Format: {graph.data.graph.format}</p>
      {layout && layout.nodes.length <= MAX_DRAWN_NODES && <EdgeDiagram layout={layout} />}
      {layout && layout.nodes.length > MAX_DRAWN_NODES && (
        <p class="muted">
          The graph has {formatNumber(layout.nodes.length)} connected nodes, too many to draw: its modules are listed below.
        </p>
      )}
      <ul class="tree">
        {roots.map((node) => (
          <Node key={node.key} node={node} depth={0} />
        ))}
      </ul>
    </div>
  );
}
