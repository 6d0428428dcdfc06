import { api } from "../../api.ts";
import { useLiveTick, useServerState } from "../../hooks.ts";
import { formatDate } from "../../lib/format.ts";
import { Link, settingsPath } from "../../router.tsx";
import { ErrorNote, Loading } from "../common.tsx";
import { lazy } from "../lazy.tsx";

const AlertHistory = lazy("the alert history", () => import("../alerts/history.tsx").then((module) => module.AlertHistory));

/**
 * A run's Alerts tab: what the project's alert rules fired for it (with each delivery's state), then
 * the alerts its client sent (`pluto.alert(...)`).
 */
export function RunAlerts({ projectName, runId, liveTick }: { projectName: string; runId: number; liveTick: number }) {
  return (
    <>
      <section data-testid="run-alert-history">
        <h2>Fired by alert rules</h2>
        <p class="muted">
          The project's rules are in its <Link href={settingsPath(projectName)}>settings</Link>.
        </p>
        <AlertHistory projectName={projectName} runId={runId} liveTick={liveTick} />
      </section>
      <section>
        <h2>Sent by the run</h2>
        <ClientAlerts runId={runId} liveTick={liveTick} />
      </section>
    </>
  );
}

/** The alerts a run's client sent, newest first, with their level, title and body as text. */
function ClientAlerts({ runId, liveTick }: { runId: number; liveTick: number }) {
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
