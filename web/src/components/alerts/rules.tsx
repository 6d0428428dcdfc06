// A project's alert rules on its settings page: each with its condition in words, the destinations
// it notifies, an on/off switch, edit and delete; and the form that adds one.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useAction, useServerState } from "../../hooks.ts";
import { conditionInWords, draftOf, EMPTY_DRAFT } from "../../lib/alerts.ts";
import type { AlertDestination as Destination, AlertRule } from "../../types.ts";
import { ErrorNote, Loading } from "../common.tsx";
import { alertKeys } from "./action.ts";
import { RuleForm } from "./rule-form.tsx";

export function AlertRules({ projectName, destinations }: { projectName: string; destinations: readonly Destination[] }) {
  const rules = useServerState(alertKeys.rules(projectName), () => api.alertRules(projectName));
  const metricNames = useServerState(["metricNames", projectName, undefined], () => api.metricNames(projectName));
  const create = useAction();
  const names = metricNames.data?.metricNames ?? [];
  return (
    <section class="settings-section" aria-labelledby="alert-rules-title">
      <h2 id="alert-rules-title">Alert rules</h2>
      <p class="muted">A rule fires once when its condition starts holding for a run, and again only after it stopped holding.</p>
      <ErrorNote error={rules.error} />
      {!rules.data && !rules.error && <Loading what="alert rules" />}
      {rules.data && rules.data.rules.length === 0 && <p class="muted">This project has no alert rules yet.</p>}
      {rules.data && rules.data.rules.length > 0 && (
        <ul class="alert-rules" data-testid="alert-rules">
          {rules.data.rules.map((rule) => (
            <RuleRow key={rule.id} rule={rule} destinations={destinations} metricNames={names} />
          ))}
        </ul>
      )}
      <details class="alert-new-rule" data-testid="new-rule">
        <summary>New rule</summary>
        <RuleForm
          initial={EMPTY_DRAFT}
          metricNames={names}
          destinations={destinations}
          submitLabel="Create rule"
          busy={create.busy}
          serverError={create.error}
          onSubmit={(body) => create.run(() => api.createAlertRule({ projectName, ...body }), [alertKeys.rules(projectName)])}
        />
      </details>
    </section>
  );
}

function RuleRow({
  rule,
  destinations,
  metricNames,
}: {
  rule: AlertRule;
  destinations: readonly Destination[];
  metricNames: readonly string[];
}) {
  const [editing, setEditing] = useState(false);
  // The switch shows the user's choice at once, and the server's answer when it comes (or its refusal undoes it).
  const [enabled, setEnabled] = useState(rule.enabled);
  useEffect(() => setEnabled(rule.enabled), [rule.enabled]);
  const action = useAction();
  const reload = [alertKeys.rules(rule.projectName)];
  const byId = new Map(destinations.map((destination) => [destination.id, destination.name]));
  const notified = rule.destinationIds.map((id) => byId.get(id) ?? `destination ${id}`);
  return (
    <li data-rule-id={rule.id} data-testid="alert-rule" class={enabled ? "" : "disabled"}>
      <div class="alert-rule-summary">
        <label class="switch" title={enabled ? "Turn the rule off" : "Turn the rule on"}>
          <input
            type="checkbox"
            checked={enabled}
            aria-label={`${rule.name} enabled`}
            data-testid="rule-enabled"
            disabled={action.busy}
            onChange={(event) => {
              const wanted = event.currentTarget.checked;
              setEnabled(wanted);
              void action
                .run(() => api.updateAlertRule(rule.id, { enabled: wanted }), reload)
                .then((done) => done || setEnabled(rule.enabled));
            }}
          />
        </label>
        <strong>{rule.name}</strong>
        <span data-testid="rule-condition">when {conditionInWords(rule.condition)}</span>
        <span class="muted" data-testid="rule-notifies">
          {notified.length === 0 ? "history only" : `→ ${notified.join(", ")}`}
        </span>
        <span class="actions">
          <button type="button" class="link" onClick={() => setEditing(!editing)} aria-expanded={editing} data-testid="edit-rule">
            edit
          </button>
          <button
            type="button"
            class="link"
            data-testid="delete-rule"
            onClick={() =>
              confirm(`Delete the rule “${rule.name}”? Its past events stay in the history.`) &&
              void action.run(() => api.deleteAlertRule(rule.id), reload)
            }
          >
            delete
          </button>
        </span>
      </div>
      {editing ? (
        <RuleForm
          initial={draftOf(rule)}
          metricNames={metricNames}
          destinations={destinations}
          submitLabel="Save rule"
          busy={action.busy}
          serverError={action.error}
          onCancel={() => setEditing(false)}
          onSubmit={async (body) => {
            const saved = await action.run(() => api.updateAlertRule(rule.id, body), reload);
            if (saved) setEditing(false);
            return saved;
          }}
        />
      ) : (
        <ErrorNote error={action.error} />
      )}
    </li>
  );
}
