import { api } from "../../api.ts";
import { useServerState, useLiveTick } from "../../hooks.ts";
import { formatDate } from "../../lib/format.ts";
import { ErrorNote, Loading, StatusBadge } from "../common.tsx";

/** The durable timeline of a run's status changes, oldest first. */
export function StatusHistory({ runId, liveTick }: { runId: number; liveTick: number }) {
  const history = useServerState(["statusHistory", runId], () => api.statusHistory(runId));
  useLiveTick(liveTick, history.reload);
  if (history.error) return <ErrorNote error={history.error} />;
  if (!history.data) return <Loading what="status history" />;
  return (
    <ol class="timeline" data-testid="status-history">
      {history.data.events.map((event) => (
        <li key={event.id}>
          <time dateTime={event.createdAt}>{formatDate(event.createdAt)}</time>
          <span>
            {event.fromStatus ? <StatusBadge status={event.fromStatus} /> : <span class="muted">created</span>} →{" "}
            <StatusBadge status={event.toStatus} />
          </span>
          <span class="muted">
            by {event.source}
            {event.metadata !== undefined && event.metadata !== null ? ` · ${JSON.stringify(event.metadata)}` : ""}
          </span>
        </li>
      ))}
    </ol>
  );
}
