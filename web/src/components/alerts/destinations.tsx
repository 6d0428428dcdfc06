// The organization's alert destinations (webhooks and Slack incoming webhooks): list, add, delete,
// send a test. A webhook's signing secret is answered once, by the create: it is shown here once,
// with a copy button, and never again (the server keeps no way to read it back).

import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { type Async, useAction } from "../../hooks.ts";
import { MAX_ALERT_NAME_LENGTH } from "../../../../src/domain/shared-with-ui.ts";
import { DESTINATION_KINDS, type DestinationKind, destinationProblem } from "../../lib/alerts.ts";
import type * as T from "../../types.ts";
import { ErrorNote, Loading } from "../common.tsx";
import { alertKeys } from "./action.ts";

export function AlertDestinations({ destinations }: { destinations: Async<T.AlertDestinations> }) {
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  return (
    <section class="settings-section" aria-labelledby="destinations-title">
      <h2 id="destinations-title">Destinations</h2>
      <p class="muted">Where alerts are sent, shared by every project of the organization.</p>
      {created && <SecretOnce name={created.name} secret={created.secret} onDone={() => setCreated(null)} />}
      <ErrorNote error={destinations.error} />
      {!destinations.data && !destinations.error && <Loading what="destinations" />}
      {destinations.data && destinations.data.destinations.length === 0 && <p class="muted">No destinations yet.</p>}
      {destinations.data && destinations.data.destinations.length > 0 && (
        <ul class="alert-destinations" data-testid="destinations">
          {destinations.data.destinations.map((destination) => (
            <DestinationRow key={destination.id} destination={destination} />
          ))}
        </ul>
      )}
      <details class="alert-new-destination" data-testid="new-destination">
        <summary>New destination</summary>
        <DestinationForm onCreated={(name, secret) => setCreated(secret === null ? null : { name, secret })} />
      </details>
    </section>
  );
}

function DestinationRow({ destination }: { destination: T.AlertDestination }) {
  const action = useAction();
  const [testQueued, setTestQueued] = useState(false);
  const sendTest = () =>
    action.run(async () => {
      await api.testAlertDestination(destination.id);
      setTestQueued(true);
    }, [alertKeys.deliveries]);
  const remove = () =>
    confirm(`Delete the destination “${destination.name}”? Rules that notify it stop notifying it.`) &&
    void action.run(() => api.deleteAlertDestination(destination.id), [alertKeys.destinations, ["alertRules"]]);
  return (
    <li data-destination-id={destination.id} data-testid="destination">
      <strong>{destination.name}</strong> <span class="tag">{destination.kind}</span>{" "}
      <span class="mono truncate destination-url" title={destination.url}>
        {destination.url}
      </span>
      <span class="actions">
        <button type="button" class="link" disabled={action.busy} onClick={() => void sendTest()} data-testid="test-destination">
          send test
        </button>
        <button type="button" class="link" disabled={action.busy} onClick={remove} data-testid="delete-destination">
          delete
        </button>
      </span>
      {testQueued && (
        <span class="muted" role="status">
          Test queued: its delivery shows under Delivery status.
        </span>
      )}
      <ErrorNote error={action.error} />
    </li>
  );
}

function DestinationForm({ onCreated }: { onCreated: (name: string, secret: string | null) => void }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<DestinationKind>("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [problem, setProblem] = useState<string>();
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(destinationProblem(name, url));
    if (destinationProblem(name, url)) return;
    const body = { name: name.trim(), kind, url: url.trim(), ...(kind === "webhook" && secret !== "" ? { secret } : {}) };
    await action.run(async () => {
      const answer = await api.createAlertDestination(body);
      // A secret the user typed is theirs already; only a generated one must be shown.
      onCreated(answer.destination.name, body.secret === undefined ? answer.secret : null);
      setName("");
      setUrl("");
      setSecret("");
    }, [alertKeys.destinations]);
  };
  return (
    <form class="alert-destination-form" onSubmit={submit} noValidate data-testid="destination-form">
      <label>
        Name
        <input
          type="text"
          value={name}
          maxLength={MAX_ALERT_NAME_LENGTH}
          data-testid="destination-name"
          onInput={(event) => setName(event.currentTarget.value)}
        />
      </label>
      <label>
        Kind
        <select
          value={kind}
          data-testid="destination-kind"
          onChange={(event) => setKind(event.currentTarget.value === "slack" ? "slack" : "webhook")}
        >
          {DESTINATION_KINDS.map((option) => (
            <option key={option} value={option}>
              {option === "slack" ? "Slack incoming webhook" : "Webhook (signed JSON)"}
            </option>
          ))}
        </select>
      </label>
      <label>
        URL
        <input
          type="url"
          value={url}
          placeholder="https://…"
          data-testid="destination-url"
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
      </label>
      {kind === "webhook" && (
        <label>
          Secret (optional)
          <input
            type="password"
            value={secret}
            autoComplete="new-password"
            placeholder="generated when left empty"
            data-testid="destination-secret"
            onInput={(event) => setSecret(event.currentTarget.value)}
          />
        </label>
      )}
      <div class="actions">
        <button type="submit" disabled={action.busy} data-testid="destination-submit">
          Add destination
        </button>
      </div>
      <ErrorNote error={problem ?? action.error} />
    </form>
  );
}

/** The generated secret, once: copy it now or never. */
function SecretOnce({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(secret);
    setCopied(true);
  };
  return (
    <div class="secret-once" role="alert" data-testid="secret-once">
      <p>
        <strong>The signing secret of “{name}”.</strong> Copy it now: <strong>you will not see it again.</strong> Your receiver checks each
        delivery's <span class="mono">X-Stepwise-Signature</span> with it.
      </p>
      <div class="actions">
        <input
          type="text"
          readOnly
          class="mono"
          value={secret}
          data-testid="secret-value"
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy().catch(() => setCopied(false))} data-testid="copy-secret">
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" class="link" onClick={onDone}>
          I have saved it
        </button>
      </div>
    </div>
  );
}
