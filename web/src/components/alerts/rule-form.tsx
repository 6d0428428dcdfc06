// The form that creates or edits an alert rule: its name, its condition's type and fields, and the
// destinations it notifies. What it sends is checked first by ruleFromDraft (lib/alerts.ts); a
// refusal of the server is shown in the server's words.

import { useState } from "preact/hooks";
import {
  ALERT_LEVELS,
  ANY_METRIC,
  type ConditionType,
  ENDED_STATUSES,
  MAX_ALERT_NAME_LENGTH,
  MAX_CONSECUTIVE,
  MIN_STALLED_SECONDS,
} from "../../../../src/domain/shared-with-ui.ts";
import {
  CONDITION_CHOICES,
  CONDITION_LABELS,
  type RuleBody,
  type RuleDraft,
  type RuleField,
  ruleFromDraft,
  THRESHOLD_OPS,
} from "../../lib/alerts.ts";
import type { AlertDestination as Destination } from "../../types.ts";
import { ErrorNote } from "../common.tsx";

const isConditionType = (value: string): value is ConditionType => (CONDITION_CHOICES as readonly string[]).includes(value);

export function RuleForm(props: {
  initial: RuleDraft;
  metricNames: readonly string[];
  destinations: readonly Destination[];
  submitLabel: string;
  /** Sends the rule; resolves false when the server refused it (its error is `serverError`). */
  onSubmit: (body: RuleBody) => Promise<boolean>;
  onCancel?: () => void;
  serverError: string | undefined;
  busy: boolean;
}) {
  const [draft, setDraft] = useState<RuleDraft>(props.initial);
  const [problems, setProblems] = useState<ReadonlyMap<RuleField, string>>(new Map());
  const change = (fields: Partial<RuleDraft>) => setDraft({ ...draft, ...fields });
  const problem = (field: RuleField) => {
    const message = problems.get(field);
    return message ? (
      <span class="error field-problem" data-testid={`problem-${field}`}>
        {message}
      </span>
    ) : null;
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const checked = ruleFromDraft(draft);
    if ("problems" in checked) {
      setProblems(new Map(checked.problems.map((found) => [found.field, found.message])));
      return;
    }
    setProblems(new Map());
    if ((await props.onSubmit(checked.body)) && props.onCancel === undefined) setDraft(props.initial);
  };
  const toggleIn = <V,>(list: readonly V[], value: V) => (list.includes(value) ? list.filter((item) => item !== value) : [...list, value]);
  const listId = `metric-names-${props.submitLabel.replace(/\W/g, "")}`;

  return (
    <form class="alert-rule-form" data-testid="rule-form" onSubmit={submit} noValidate>
      <label>
        Name
        <input
          type="text"
          value={draft.name}
          maxLength={MAX_ALERT_NAME_LENGTH}
          data-testid="rule-name"
          onInput={(event) => change({ name: event.currentTarget.value })}
        />
        {problem("name")}
      </label>
      <label>
        When
        <select
          value={draft.type}
          data-testid="rule-type"
          onChange={(event) => isConditionType(event.currentTarget.value) && change({ type: event.currentTarget.value })}
        >
          {CONDITION_CHOICES.map((type) => (
            <option key={type} value={type}>
              {CONDITION_LABELS[type]}
            </option>
          ))}
        </select>
      </label>
      {(draft.type === "threshold" || draft.type === "non_finite") && (
        <label>
          Metric
          <input
            type="text"
            list={listId}
            value={draft.metric}
            placeholder={`a metric name, or ${ANY_METRIC} for any`}
            data-testid="rule-metric"
            onInput={(event) => change({ metric: event.currentTarget.value })}
          />
          <datalist id={listId}>
            <option value={ANY_METRIC}>any metric</option>
            {props.metricNames.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          {problem("metric")}
        </label>
      )}
      {draft.type === "threshold" && (
        <>
          <label>
            Is
            <select
              value={draft.op}
              data-testid="rule-op"
              onChange={(event) => change({ op: event.currentTarget.value === "below" ? "below" : "above" })}
            >
              {THRESHOLD_OPS.map((op) => (
                <option key={op} value={op}>
                  {op}
                </option>
              ))}
            </select>
          </label>
          <label>
            Value
            <input
              type="text"
              inputMode="decimal"
              value={draft.value}
              data-testid="rule-value"
              onInput={(event) => change({ value: event.currentTarget.value })}
            />
            {problem("value")}
          </label>
          <label>
            For consecutive points
            <input
              type="number"
              min={1}
              max={MAX_CONSECUTIVE}
              value={draft.consecutive}
              data-testid="rule-consecutive"
              onInput={(event) => change({ consecutive: event.currentTarget.value })}
            />
            {problem("consecutive")}
          </label>
        </>
      )}
      {draft.type === "stalled" && (
        <label>
          No data for (seconds)
          <input
            type="number"
            min={MIN_STALLED_SECONDS}
            value={draft.afterSeconds}
            data-testid="rule-after-seconds"
            onInput={(event) => change({ afterSeconds: event.currentTarget.value })}
          />
          {problem("afterSeconds")}
        </label>
      )}
      {draft.type === "status" && (
        <fieldset class="statuses">
          <legend>Ends as</legend>
          {ENDED_STATUSES.map((status) => (
            <label key={status}>
              <input
                type="checkbox"
                checked={draft.statuses.includes(status)}
                onChange={() => change({ statuses: toggleIn(draft.statuses, status) })}
              />
              {status}
            </label>
          ))}
          {problem("statuses")}
        </fieldset>
      )}
      {draft.type === "client_alert" && (
        <label>
          At level or above
          <select
            value={draft.minLevel}
            data-testid="rule-min-level"
            onChange={(event) => change({ minLevel: ALERT_LEVELS.find((level) => level === event.currentTarget.value) ?? "INFO" })}
          >
            {ALERT_LEVELS.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
      )}
      <fieldset class="alert-rule-destinations" data-testid="rule-destinations">
        <legend>Notify</legend>
        {props.destinations.length === 0 && <span class="muted">No destinations yet: the rule's events are kept in the history only.</span>}
        {props.destinations.map((destination) => (
          <label key={destination.id}>
            <input
              type="checkbox"
              checked={draft.destinationIds.includes(destination.id)}
              onChange={() => change({ destinationIds: toggleIn(draft.destinationIds, destination.id) })}
            />
            {destination.name} <span class="muted">({destination.kind})</span>
          </label>
        ))}
      </fieldset>
      {problem("condition")}
      <div class="actions">
        <button type="submit" disabled={props.busy} data-testid="rule-submit">
          {props.submitLabel}
        </button>
        {props.onCancel && (
          <button type="button" class="link" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      <ErrorNote error={props.serverError} />
    </form>
  );
}
