import { randomUUID } from "node:crypto";
import { INITIAL_STATE, type Condition, type ConditionState } from "../../domain/alerts/conditions.js";
import type { RunStatus } from "../../domain/status.js";
import type { AlertQuery } from "../alert-sql.js";
import type {
  AlertDestination,
  AlertEvent,
  AlertRule,
  AlertRunContext,
  AlertTransition,
  ClaimedDelivery,
  Delivery,
  DeliveryListItem,
  DeliveryOutcome,
  DeliveryStatus,
  DestinationKind,
  NewAlertDestination,
  NewAlertEvent,
  NewAlertRule,
  StalledCandidate,
} from "../alert-store.js";
import { conflictOnUnique } from "../conflicts.js";
import { performer, type Workflow } from "../workflow.js";

/**
 * The alert store (AlertStore), written once: the SQL is alert-sql.ts's, the backend only runs it
 * (its three operations below) inside the method's transaction.
 */
export interface AlertOperations {
  alertRows(query: AlertQuery, params: unknown[]): Record<string, unknown>[];
  alertRow(query: AlertQuery, params: unknown[]): Record<string, unknown> | undefined;
  /** Rows changed. */
  alertRun(query: AlertQuery, params: unknown[]): number;
}

type AlertWorkflow<T> = Workflow<T, AlertOperations>;
const perform = performer<AlertOperations>();
const rows = (query: AlertQuery, ...params: unknown[]) => perform("alertRows", query, params);
const one = (query: AlertQuery, ...params: unknown[]) => perform("alertRow", query, params);
const exec = (query: AlertQuery, ...params: unknown[]) => perform("alertRun", query, params);

type Row = Record<string, unknown>;
const num = (value: unknown) => Number(value);
const numOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const strOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value));

const toDestination = (row: Row): AlertDestination => ({
  id: num(row.id),
  name: String(row.name),
  kind: row.kind as DestinationKind,
  url: String(row.url),
  createdAt: num(row.created_at),
});

const toRule = (row: Row, destinationIds: number[]): AlertRule => ({
  id: num(row.id),
  orgId: String(row.org_id),
  projectId: num(row.project_id),
  projectName: String(row.project_name),
  name: String(row.name),
  condition: JSON.parse(String(row.condition)) as Condition,
  destinationIds,
  enabled: num(row.enabled) === 1,
  createdAt: num(row.created_at),
  updatedAt: num(row.updated_at),
});

const toDelivery = (row: Row): Delivery => ({
  id: String(row.id),
  destinationId: num(row.destination_id),
  destinationName: String(row.destination_name),
  status: row.status as DeliveryStatus,
  attempts: num(row.attempts),
  lastError: strOrNull(row.last_error),
  nextAttemptAt: numOrNull(row.next_attempt_at),
  deliveredAt: numOrNull(row.delivered_at),
});

const toEvent = (row: Row) => ({
  id: num(row.event_id),
  ruleId: numOrNull(row.rule_id),
  ruleName: strOrNull(row.rule_name),
  runId: numOrNull(row.run_id) ?? 0,
  runName: strOrNull(row.run_name) ?? "",
  projectName: strOrNull(row.project_name) ?? "",
  kind: String(row.kind),
  title: String(row.title),
  body: String(row.body),
  level: String(row.level),
  createdAt: num(row.created_at),
});

const stateOf = (row: Row | undefined): ConditionState =>
  row && row.active !== null && row.active !== undefined ? { active: num(row.active) === 1, streak: num(row.streak) } : INITIAL_STATE;

export function* createAlertDestination(orgId: string, input: NewAlertDestination, now: number): AlertWorkflow<AlertDestination> {
  const insert = one("insertDestination", orgId, input.name, input.kind, input.url, input.secret, now);
  const row = yield* conflictOnUnique(insert, `the organization already has a destination named '${input.name}'`);
  return toDestination(row!);
}

export function* listAlertDestinations(orgId: string): AlertWorkflow<AlertDestination[]> {
  return (yield* rows("listDestinations", orgId)).map(toDestination);
}

export function* getAlertDestination(orgId: string, destinationId: number): AlertWorkflow<AlertDestination | undefined> {
  const row = yield* one("getDestination", orgId, destinationId);
  return row && toDestination(row);
}

export function* deleteAlertDestination(orgId: string, destinationId: number): AlertWorkflow<boolean> {
  return (yield* exec("deleteDestination", orgId, destinationId)) > 0;
}

function* nameDestinations(orgId: string, ruleId: number, destinationIds: number[]): AlertWorkflow<void> {
  for (const destinationId of destinationIds) yield* exec("insertRuleDestination", ruleId, orgId, destinationId);
}

export function* getAlertRule(orgId: string, ruleId: number): AlertWorkflow<AlertRule | undefined> {
  const row = yield* one("getRule", orgId, ruleId);
  if (!row) return undefined;
  const destinations = yield* rows("ruleDestinations", ruleId);
  return toRule(
    row,
    destinations.map((d) => num(d.destination_id)),
  );
}

export function* createAlertRule(orgId: string, projectId: number, input: NewAlertRule, now: number): AlertWorkflow<AlertRule | undefined> {
  const conditionText = JSON.stringify(input.condition);
  const inserted = yield* one(
    "insertRule",
    orgId,
    input.name,
    input.condition.type,
    conditionText,
    input.enabled ? 1 : 0,
    now,
    now,
    orgId,
    projectId,
  );
  if (!inserted) return undefined;
  yield* nameDestinations(orgId, num(inserted.id), input.destinationIds);
  return yield* getAlertRule(orgId, num(inserted.id));
}

export function* listAlertRules(orgId: string, projectId: number, enabledOnly = false): AlertWorkflow<AlertRule[]> {
  const ruleRows = yield* rows(enabledOnly ? "listEnabledRules" : "listRules", orgId, projectId);
  if (ruleRows.length === 0) return [];
  const destinations = new Map<number, number[]>();
  for (const row of yield* rows("projectRuleDestinations", projectId)) {
    const ruleId = num(row.rule_id);
    destinations.set(ruleId, [...(destinations.get(ruleId) ?? []), num(row.destination_id)]);
  }
  return ruleRows.map((row) => toRule(row, destinations.get(num(row.id)) ?? []));
}

export function* updateAlertRule(
  orgId: string,
  ruleId: number,
  change: Partial<NewAlertRule>,
  now: number,
): AlertWorkflow<AlertRule | undefined> {
  const enabled = change.enabled === undefined ? null : change.enabled ? 1 : 0;
  const conditionText = change.condition ? JSON.stringify(change.condition) : null;
  const updated = yield* exec(
    "updateRule",
    change.name ?? null,
    change.condition?.type ?? null,
    conditionText,
    enabled,
    now,
    orgId,
    ruleId,
  );
  if (updated === 0) return undefined;
  // A new condition, or a rule disabled, starts again from nothing for every run.
  if (change.condition || change.enabled === false) yield* exec("clearRuleStates", ruleId);
  if (change.destinationIds) {
    yield* exec("deleteRuleDestinations", ruleId);
    yield* nameDestinations(orgId, ruleId, change.destinationIds);
  }
  return yield* getAlertRule(orgId, ruleId);
}

export function* deleteAlertRule(orgId: string, ruleId: number): AlertWorkflow<boolean> {
  return (yield* exec("deleteRule", orgId, ruleId)) > 0;
}

export function* getAlertRunContext(runId: number): AlertWorkflow<AlertRunContext | undefined> {
  const row = yield* one("runContext", runId);
  return row && { orgId: String(row.org_id), projectId: num(row.project_id), name: String(row.name), displayId: String(row.display_id) };
}

export function* getAlertStates(runId: number, ruleIds: number[]): AlertWorkflow<Map<number, ConditionState>> {
  const wanted = new Set(ruleIds);
  const states = new Map<number, ConditionState>();
  for (const row of yield* rows("runStates", runId)) if (wanted.has(num(row.rule_id))) states.set(num(row.rule_id), stateOf(row));
  return states;
}

function* insertEvent(event: NewAlertEvent, destinationIds: number[], now: number): AlertWorkflow<string[]> {
  const { orgId } = event;
  const values = [event.projectId, event.runId, event.ruleId, event.ruleName, event.kind, event.title, event.body, event.level];
  const eventId = num((yield* one("insertEvent", orgId, ...values, now))!.id);
  const deliveryIds: string[] = [];
  for (const destinationId of destinationIds) {
    const deliveryId = randomUUID();
    if ((yield* exec("insertDelivery", deliveryId, eventId, now, now, orgId, destinationId)) > 0) deliveryIds.push(deliveryId);
  }
  return deliveryIds;
}

export function* recordAlertTransitions(transitions: AlertTransition[], now: number): AlertWorkflow<boolean[]> {
  const applied: boolean[] = [];
  for (const { ruleId, runId, from, to, event } of transitions) {
    const [active, streak] = [to.active ? 1 : 0, to.streak];
    const changed =
      !from.active && from.streak === 0
        ? yield* exec("setStateFromInitial", ruleId, runId, active, streak, now, ruleId, runId)
        : yield* exec("setState", active, streak, now, ruleId, runId, from.active ? 1 : 0, from.streak);
    applied.push(changed > 0);
    if (changed > 0 && event) {
      const destinations = yield* rows("ruleDestinations", ruleId);
      yield* insertEvent(
        event,
        destinations.map((d) => num(d.destination_id)),
        now,
      );
    }
  }
  return applied;
}

export function* recordAlertEvent(event: NewAlertEvent, destinationIds: number[], now: number): AlertWorkflow<string[]> {
  return yield* insertEvent(event, destinationIds, now);
}

export function* listStalledCandidates(): AlertWorkflow<StalledCandidate[]> {
  return (yield* rows("stalledCandidates")).map((row) => ({
    rule: toRule(row, []),
    runId: num(row.run_id),
    runName: String(row.run_name),
    status: row.status as RunStatus,
    lastActivityAt: num(row.heartbeat_at),
    state: stateOf(row),
  }));
}

export function* listAlertEvents(
  orgId: string,
  projectId: number,
  query: { runId: number | null; limit: number; beforeId: number | null },
): AlertWorkflow<AlertEvent[]> {
  const { runId, beforeId } = query;
  const events = (yield* rows("listEvents", orgId, projectId, runId, runId, beforeId, beforeId, query.limit)).map(toEvent);
  if (events.length === 0) return [];
  const deliveries = new Map<number, Delivery[]>(events.map((event) => [event.id, []]));
  const range = [events.at(-1)!.id, events[0]!.id];
  for (const row of yield* rows("eventDeliveries", orgId, ...range)) deliveries.get(num(row.event_id))?.push(toDelivery(row));
  return events.map((event) => ({ ...event, deliveries: deliveries.get(event.id)! }));
}

export function* listAlertDeliveries(
  orgId: string,
  query: { status: DeliveryStatus | null; limit: number; beforeSeq: number | null },
): AlertWorkflow<DeliveryListItem[]> {
  const { status, beforeSeq } = query;
  return (yield* rows("listDeliveries", orgId, status, status, beforeSeq, beforeSeq, query.limit)).map((row) => ({
    ...toDelivery(row),
    seq: num(row.seq),
    eventId: num(row.event_id),
    title: String(row.title),
    createdAt: num(row.created_at),
  }));
}

export function* retryAlertDelivery(orgId: string, deliveryId: string, now: number): AlertWorkflow<boolean> {
  return (yield* exec("retryDelivery", now, orgId, deliveryId)) > 0;
}

export function* hasDueAlertDeliveries(now: number): AlertWorkflow<boolean> {
  return (yield* one("anyDue", now, now)) !== undefined;
}

export function* claimAlertDeliveries(now: number, limit: number, claimMs: number, claimToken: string): AlertWorkflow<ClaimedDelivery[]> {
  if ((yield* exec("claimDeliveries", now + claimMs, claimToken, now, now, limit)) === 0) return [];
  return (yield* rows("claimedDeliveries", claimToken)).map((row) => {
    const event = toEvent(row);
    return {
      id: String(row.id),
      attempts: num(row.attempts),
      destination: {
        id: num(row.destination_id),
        kind: row.destination_kind as DestinationKind,
        url: String(row.url),
        secret: strOrNull(row.secret),
      },
      event,
      run:
        row.run_id === null
          ? null
          : { id: event.runId, name: event.runName, displayId: String(row.display_id), projectName: event.projectName },
    };
  });
}

export function* finishAlertDelivery(
  deliveryId: string,
  claimToken: string,
  outcome: DeliveryOutcome,
  now: number,
): AlertWorkflow<boolean> {
  if (outcome.status === "deferred") {
    return (yield* exec("finishDelivery", "pending", 0, 0, null, outcome.retryAt, null, deliveryId, claimToken)) > 0;
  }
  const error = outcome.status === "delivered" ? null : outcome.error;
  const retryAt = outcome.status === "pending" ? outcome.retryAt : null;
  const deliveredAt = outcome.status === "delivered" ? now : null;
  return (yield* exec("finishDelivery", outcome.status, 1, 1, error, retryAt, deliveredAt, deliveryId, claimToken)) > 0;
}
