import { api } from "../../api.ts";
import { useServerState, useLiveTick } from "../../hooks.ts";
import { formatDate } from "../../lib/format.ts";
import { ErrorNote, Loading } from "../common.tsx";

/** The alerts a run's client sent (`pluto.alert(...)`), newest first, with their level, title and body as text. */
export function RunAlerts({ runId, liveTick }: { runId: number; liveTick: number }) {
  const alerts = useServerState(["alerts", runId], () => api.alerts(runId));
  useLiveTick(liveTick, alerts.reload);
  if (alerts.error) return <ErrorNote error={alerts.error} />;
  if (!alerts.data) return <Loading what="alerts" />;
  if (alerts.data.alerts.length === 0) return <p class="muted">The run sent no alerts.</p>;
  const newestFirst = [...alerts.data.alerts].sort((a, b) => b.id - a.id);
  return (
    <ol class="timeline" data-testid="run-alerts">
      {newestFirst.map((alert) => (
        <li key={alert.id}>
          <time dateTime={alert.timestamp ?? alert.createdAt}>{formatDate(alert.timestamp ?? alert.createdAt)}</time>
          <span>
            <span class={`tag alert-${alert.level.toLowerCase() === "error" ? "error" : "other"}`}>{alert.level}</span>{" "}
            <strong>{alert.title}</strong>
          </span>
          {alert.body && <pre class="alert-body">{alert.body}</pre>}
        </li>
      ))}
    </ol>
  );
}
