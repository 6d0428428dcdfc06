// Alert history: the events rules fired for a project (or one run), newest first, each with the
// state of its deliveries; and the organization's outbox (Delivery status), where a failed delivery
// is retried. The history reads itself again while a delivery is pending, the outbox always.

import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useAction, useLiveTick, useServerState } from "../../hooks.ts";
import { DELIVERY_STATUSES, type DeliveryStatus, deliveryInWords } from "../../lib/alerts.ts";
import type { AlertDelivery as Delivery } from "../../types.ts";
import { Link, runPath } from "../../router.tsx";
import { ErrorNote, Loading, TimeAgo } from "../common.tsx";
import { alertKeys } from "./action.ts";
import "./alerts.css";

const PAGE_SIZE = 50;
/** How often a history with a pending delivery is read again (the outbox's next attempt may have happened). */
const PENDING_RELOAD_MS = 3000;
/** How often Delivery status is read again, whatever it shows: a delivery of any event may change state. */
const OUTBOX_RELOAD_MS = 5000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Cursor paging: the cursors of the pages before the shown one, so Newer goes back without asking the server. */
function useCursorPages() {
  const [cursors, setCursors] = useState<readonly string[]>([]);
  return {
    cursor: cursors.at(-1),
    newer: cursors.length > 0 ? () => setCursors(cursors.slice(0, -1)) : undefined,
    older: (next: string | null) => (next === null ? undefined : () => setCursors([...cursors, next])),
    reset: () => setCursors([]),
  };
}

function PageButtons({ newer, older }: { newer: (() => void) | undefined; older: (() => void) | undefined }) {
  if (!newer && !older) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={!newer} onClick={newer}>
        ← Newer
      </button>
      <button type="button" disabled={!older} onClick={older}>
        Older →
      </button>
    </nav>
  );
}

/** `liveTick` (a RUNNING run's page) reads the history again on each tick: a rule may fire any time. */
export function AlertHistory({ projectName, runId, liveTick = 0 }: { projectName: string; runId?: number; liveTick?: number }) {
  const pages = useCursorPages();
  const events = useServerState(
    [...alertKeys.events, projectName, runId, pages.cursor],
    () => api.alertEvents({ projectName, runId, limit: PAGE_SIZE, cursor: pages.cursor }),
    { every: (page) => (page?.events.some((event) => event.deliveries.some(pending)) ? PENDING_RELOAD_MS : false) },
  );
  useLiveTick(liveTick, events.reload);
  if (events.error) return <ErrorNote error={events.error} />;
  if (!events.data) return <Loading what="alert history" />;
  if (events.data.events.length === 0)
    return <p class="muted">{runId === undefined ? "No rule of this project has fired yet." : "No alert rule fired for this run."}</p>;
  return (
    <>
      <ol class="timeline alert-events" data-testid="alert-events">
        {events.data.events.map((event) => (
          <li key={event.id} data-event-id={event.id} data-testid="alert-event">
            <TimeAgo iso={iso(event.createdAt)} />
            <span>
              <span class={`tag alert-${event.level === "ERROR" ? "error" : "other"}`}>{event.level}</span> <strong>{event.title}</strong>{" "}
              <span class="muted">
                {event.kind === "test" ? "test delivery" : event.ruleName ? `rule “${event.ruleName}”` : "a deleted rule"}
                {runId === undefined && (
                  <>
                    {" · "}
                    <Link href={runPath(event.projectName, event.runId)}>{event.runName}</Link>
                  </>
                )}
              </span>
            </span>
            {event.body && <pre class="alert-body">{event.body}</pre>}
            {event.deliveries.length > 0 && (
              <ul class="alert-deliveries">
                {event.deliveries.map((delivery) => (
                  <DeliveryLine key={delivery.id} delivery={delivery} />
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      <PageButtons newer={pages.newer} older={pages.older(events.data.nextCursor)} />
    </>
  );
}

const pending = (delivery: Pick<Delivery, "status">) => delivery.status === "pending";

/** One delivery: where to, its state, its last error, and Retry when it failed. */
function DeliveryLine({ delivery, title }: { delivery: Delivery; title?: string }) {
  const retry = useAction();
  return (
    <li data-delivery-id={delivery.id} data-status={delivery.status} data-testid="delivery">
      <span class={`delivery-status delivery-${delivery.status}`}>{delivery.status}</span> {title && <strong>{title} </strong>}
      <span>→ {delivery.destinationName}</span>{" "}
      <span class="muted" data-testid="delivery-words">
        {deliveryInWords(delivery, Date.now())}
      </span>
      {delivery.lastError && (
        <span class="error delivery-error" data-testid="delivery-error">
          {delivery.lastError}
        </span>
      )}
      {delivery.status === "failed" && (
        <button
          type="button"
          disabled={retry.busy}
          data-testid="retry-delivery"
          onClick={() => void retry.run(() => api.retryAlertDelivery(delivery.id), [alertKeys.deliveries, alertKeys.events])}
        >
          Retry
        </button>
      )}
      <ErrorNote error={retry.error} />
    </li>
  );
}

/** The organization's outbox: its deliveries of one status (failed first), newest first, read again every few seconds. */
export function DeliveryOutbox() {
  const [status, setStatus] = useState<DeliveryStatus>("failed");
  const pages = useCursorPages();
  const deliveries = useServerState(
    [...alertKeys.deliveries, status, pages.cursor],
    () => api.alertDeliveries({ status, limit: PAGE_SIZE, cursor: pages.cursor }),
    { every: OUTBOX_RELOAD_MS },
  );
  return (
    <section class="settings-section" aria-labelledby="outbox-title" data-testid="outbox">
      <h2 id="outbox-title">Delivery status</h2>
      <p class="muted">Every delivery of the organization's alerts. A failed one was given up after its attempts; Retry sends it again.</p>
      <fieldset class="statuses" data-testid="outbox-status">
        <legend class="visually-hidden">Show deliveries</legend>
        {DELIVERY_STATUSES.map((option) => (
          <label key={option}>
            <input
              type="radio"
              name="outbox-status"
              checked={status === option}
              onChange={() => {
                setStatus(option);
                pages.reset();
              }}
            />
            {option}
          </label>
        ))}
      </fieldset>
      <ErrorNote error={deliveries.error} />
      {!deliveries.data && !deliveries.error && <Loading what="deliveries" />}
      {deliveries.data && deliveries.data.deliveries.length === 0 && <p class="muted">No {status} deliveries.</p>}
      {deliveries.data && deliveries.data.deliveries.length > 0 && (
        <ul class="alert-deliveries" data-testid="outbox-deliveries">
          {deliveries.data.deliveries.map((delivery) => (
            <DeliveryLine key={delivery.id} delivery={delivery} title={delivery.title} />
          ))}
        </ul>
      )}
      {deliveries.data && <PageButtons newer={pages.newer} older={pages.older(deliveries.data.nextCursor)} />}
    </section>
  );
}
