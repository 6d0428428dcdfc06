import type { Condition, ConditionState } from "../domain/alerts/conditions.js";
import type { DeliveredEvent, DeliveredRun } from "../domain/alerts/events.js";
import type { RunStatus } from "../domain/status.js";

/**
 * Alert rules, their state per run, the events they fire and the outbox of deliveries
 * (docs/api.md, "Alerts"; docs/semantics.md, "Alerts"). Pure code decides (src/domain/alerts/);
 * these methods record the decisions, each in one transaction. Tenant methods take the
 * organization first: another organization's destination, rule or delivery reads like none.
 */
export interface AlertStore {
  /** Throws CONFLICT when the organization has a destination of that name. */
  createAlertDestination(orgId: string, input: NewAlertDestination, now: number): Promise<AlertDestination>;
  listAlertDestinations(orgId: string): Promise<AlertDestination[]>;
  getAlertDestination(orgId: string, destinationId: number): Promise<AlertDestination | undefined>;
  /** Whether it was deleted; rules naming it stop naming it, its deliveries go with it. */
  deleteAlertDestination(orgId: string, destinationId: number): Promise<boolean>;

  /**
   * A rule of the project; undefined when the project is not the organization's. Destinations that
   * are not the organization's are left out (the service checks them first and answers 404).
   */
  createAlertRule(orgId: string, projectId: number, input: NewAlertRule, now: number): Promise<AlertRule | undefined>;
  getAlertRule(orgId: string, ruleId: number): Promise<AlertRule | undefined>;
  /** The project's rules, oldest first; `enabledOnly` for the evaluator's cache. */
  listAlertRules(orgId: string, projectId: number, enabledOnly?: boolean): Promise<AlertRule[]>;
  /** A field left undefined keeps its value; a new condition clears the rule's states (it is re-armed for every run). */
  updateAlertRule(orgId: string, ruleId: number, change: Partial<NewAlertRule>, now: number): Promise<AlertRule | undefined>;
  deleteAlertRule(orgId: string, ruleId: number): Promise<boolean>;

  /** What the evaluator needs of a run (its organization and project), found by ID alone: the caller has checked the run. */
  getAlertRunContext(runId: number): Promise<AlertRunContext | undefined>;
  /** The stored states of these rules for the run; a rule without a row is in INITIAL_STATE. */
  getAlertStates(runId: number, ruleIds: number[]): Promise<Map<number, ConditionState>>;
  /**
   * Applies each transition whose `from` is still the stored state (an atomic compare-and-set, so
   * two processes never apply the same change twice) and, when it carries an event, records the
   * event with one pending delivery per destination of the rule. Answers, in order, whether each applied.
   */
  recordAlertTransitions(transitions: AlertTransition[], now: number): Promise<boolean[]>;
  /**
   * An event without a state change (a client's alert, a destination test): the event and one
   * pending delivery per destination given (of the event's organization). Answers the delivery IDs.
   */
  recordAlertEvent(event: NewAlertEvent, destinationIds: number[], now: number): Promise<string[]>;
  /** Every enabled stalled rule, each with the runs of its project that are RUNNING or have the rule active. */
  listStalledCandidates(): Promise<StalledCandidate[]>;

  /** The project's events, newest first, with their deliveries; `beforeId` pages on. */
  listAlertEvents(
    orgId: string,
    projectId: number,
    query: { runId: number | null; limit: number; beforeId: number | null },
  ): Promise<AlertEvent[]>;
  /** The organization's deliveries, newest first; `beforeSeq` pages on. */
  listAlertDeliveries(
    orgId: string,
    query: { status: DeliveryStatus | null; limit: number; beforeSeq: number | null },
  ): Promise<DeliveryListItem[]>;
  /** A failed delivery back to pending, attempts reset, due now; false when the organization has no failed delivery of that ID. */
  retryAlertDelivery(orgId: string, deliveryId: string, now: number): Promise<boolean>;

  /** Whether any delivery is due (a read: the worker's poll takes no write lock when the outbox is idle). */
  hasDueAlertDeliveries(now: number): Promise<boolean>;
  /**
   * Claims up to `limit` due pending deliveries (of every organization) for `claimMs` under `claimToken`:
   * no other claim takes them before the claim expires (PostgreSQL: FOR UPDATE SKIP LOCKED).
   */
  claimAlertDeliveries(now: number, limit: number, claimMs: number, claimToken: string): Promise<ClaimedDelivery[]>;
  /** Records an attempt's outcome while the claim is still ours; false when it is not (expired and taken over). */
  finishAlertDelivery(deliveryId: string, claimToken: string, outcome: DeliveryOutcome, now: number): Promise<boolean>;
}

export type DestinationKind = "webhook" | "slack";
export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface NewAlertDestination {
  name: string;
  kind: DestinationKind;
  url: string;
  /** Stored, never read back through the API (only claimAlertDeliveries reads it). */
  secret: string | null;
}

export interface AlertDestination {
  id: number;
  name: string;
  kind: DestinationKind;
  url: string;
  createdAt: number;
}

export interface NewAlertRule {
  name: string;
  condition: Condition;
  destinationIds: number[];
  enabled: boolean;
}

export interface AlertRule extends NewAlertRule {
  id: number;
  orgId: string;
  projectId: number;
  projectName: string;
  createdAt: number;
  updatedAt: number;
}

export interface AlertRunContext {
  orgId: string;
  projectId: number;
  name: string;
  displayId: string;
}

export interface NewAlertEvent {
  orgId: string;
  /** Null for a destination test. */
  projectId: number | null;
  runId: number | null;
  ruleId: number | null;
  ruleName: string | null;
  kind: Condition["type"] | "test";
  title: string;
  body: string;
  level: string;
}

export interface AlertTransition {
  ruleId: number;
  runId: number;
  from: ConditionState;
  to: ConditionState;
  /** The event when the change fires the rule (its deliveries go to the rule's destinations). */
  event?: NewAlertEvent;
}

export interface StalledCandidate {
  rule: AlertRule;
  runId: number;
  runName: string;
  status: RunStatus;
  lastActivityAt: number;
  state: ConditionState;
}

export interface Delivery {
  id: string;
  destinationId: number;
  destinationName: string;
  status: DeliveryStatus;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

export interface DeliveryListItem extends Delivery {
  seq: number;
  eventId: number;
  title: string;
  createdAt: number;
}

export interface AlertEvent extends DeliveredEvent {
  deliveries: Delivery[];
}

export interface ClaimedDelivery {
  id: string;
  attempts: number;
  destination: { id: number; kind: DestinationKind; url: string; secret: string | null };
  event: DeliveredEvent;
  /** Without its URL (the service adds it); null for a destination test. */
  run: Omit<DeliveredRun, "url"> | null;
}

export type DeliveryOutcome =
  | { status: "delivered" }
  /** Not attempted (its destination had its share of requests in flight): due again at retryAt, no attempt counted. */
  | { status: "deferred"; retryAt: number }
  | { status: "pending"; retryAt: number; error: string }
  | { status: "failed"; error: string };
