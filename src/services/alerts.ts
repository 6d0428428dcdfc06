import { randomBytes } from "node:crypto";
import { type AllowList, parseAllowList } from "../domain/alerts/address-policy.js";
import { type ConditionInput, MIN_SECRET_LENGTH, alertName, displayedUrl, normalizeCondition } from "../domain/alerts/rules.js";
import { DomainError, invalidInput, projectNotFound } from "../domain/errors.js";
import type { Clock } from "../domain/time.js";
import type { Config } from "../config.js";
import type { AlertRule, DeliveryStatus, DestinationKind, NewAlertRule } from "../store/alert-store.js";
import type { Store } from "../store/store.js";
import { AlertEvaluator } from "./alert-evaluator.js";
import type { AuditContext, AuditFact, AuditLog } from "./audit.js";
import { urlRefusal } from "./alert-http.js";

/**
 * Alert destinations, rules, events and deliveries of the caller's organization (docs/api.md,
 * "Alerts"): another organization's IDs read as ones that do not exist (404). Holds the process's
 * evaluator, whose cache a rule change here invalidates at once (other processes within its TTL).
 */

const notFound = (what: string, id: number | string) => new DomainError("NOT_FOUND", `${what} ${id} not found`);

const presentRule = (rule: AlertRule) => ({
  id: rule.id,
  projectName: rule.projectName,
  name: rule.name,
  condition: rule.condition,
  destinationIds: rule.destinationIds,
  enabled: rule.enabled,
  createdAt: rule.createdAt,
  updatedAt: rule.updatedAt,
});

/** Paging by descending ID: the next page starts below the last row's. */
function parseCursor(cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  if (!/^[1-9]\d{0,14}$/.test(cursor)) throw invalidInput("cursor: not a cursor this server gave");
  return Number(cursor);
}

const nextCursor = (page: { length: number }, limit: number, last: number | undefined) =>
  page.length === limit && last !== undefined ? String(last) : null;

const destinationFact = (action: AuditFact["action"], id: number, details: AuditFact["details"]): AuditFact => ({
  action,
  target: { type: "alert_destination", id: String(id) },
  details,
});

const ruleFact = (action: AuditFact["action"], rule: AlertRule, details: AuditFact["details"] = {}): AuditFact => ({
  action,
  target: { type: "alert_rule", id: String(rule.id) },
  details: { name: rule.name, projectName: rule.projectName, ...details },
});

export class AlertService {
  readonly evaluator: AlertEvaluator;
  private readonly allow: AllowList;

  constructor(
    private readonly deps: { store: Store; clock: Clock; config: Config },
    private readonly audit: AuditLog,
  ) {
    this.evaluator = new AlertEvaluator(deps);
    this.allow = parseAllowList(deps.config.alertsAllowHosts);
  }

  async listDestinations(orgId: string) {
    const destinations = await this.deps.store.listAlertDestinations(orgId);
    return { destinations: destinations.map((destination) => ({ ...destination, url: displayedUrl(destination.kind, destination.url) })) };
  }

  async createDestination(by: AuditContext, body: { name: string; kind: DestinationKind; url: string; secret?: string }) {
    const refusal = urlRefusal(body.url, this.allow);
    if (refusal) throw invalidInput(refusal.startsWith("url:") ? refusal : `url: ${refusal}`);
    if (body.kind === "slack" && body.secret !== undefined) throw invalidInput("secret: a slack destination has none");
    if (body.secret !== undefined && body.secret.length < MIN_SECRET_LENGTH) {
      throw invalidInput(`secret: at least ${MIN_SECRET_LENGTH} characters`);
    }
    const secret = body.kind === "slack" ? null : (body.secret ?? randomBytes(32).toString("base64url"));
    const input = { name: alertName(body.name), kind: body.kind, url: body.url, secret };
    const destination = await this.audit.write(by, "createAlertDestination", [by.orgId, input, this.deps.clock.now()], (made) => [
      destinationFact("alert_destination.create", made.id, { name: made.name, kind: made.kind }),
    ]);
    return { destination, secret };
  }

  async deleteDestination(by: AuditContext, destinationId: number) {
    const destination = await this.deps.store.getAlertDestination(by.orgId, destinationId);
    const deleted =
      destination &&
      (await this.audit.write(by, "deleteAlertDestination", [by.orgId, destinationId], (done) =>
        done ? [destinationFact("alert_destination.delete", destinationId, { name: destination.name, kind: destination.kind })] : [],
      ));
    if (!deleted) throw notFound("destination", destinationId);
    this.evaluator.invalidateAll();
    return { success: true };
  }

  async testDestination(orgId: string, destinationId: number) {
    const destination = await this.deps.store.getAlertDestination(orgId, destinationId);
    if (!destination) throw notFound("destination", destinationId);
    const event = {
      orgId,
      projectId: null,
      runId: null,
      ruleId: null,
      ruleName: null,
      kind: "test" as const,
      title: "Test delivery from Stepwise",
      body: `A test of the destination '${destination.name}'.`,
      level: "INFO",
    };
    const [deliveryId] = await this.deps.store.recordAlertEvent(event, [destinationId], this.deps.clock.now());
    if (!deliveryId) throw notFound("destination", destinationId); // deleted meanwhile
    this.evaluator.onQueued();
    return { deliveryId };
  }

  private async project(orgId: string, projectName: string) {
    const project = await this.deps.store.getProjectByName(orgId, projectName);
    if (!project) throw projectNotFound(projectName);
    return project;
  }

  /** Every destination must be the organization's: one that is not is a 404, as another organization's ID always is. */
  private async checkDestinations(orgId: string, destinationIds: number[]) {
    const known = new Set((await this.deps.store.listAlertDestinations(orgId)).map((destination) => destination.id));
    const unknown = destinationIds.find((id) => !known.has(id));
    if (unknown !== undefined) throw notFound("destination", unknown);
    return [...new Set(destinationIds)];
  }

  async listRules(orgId: string, projectName: string) {
    const project = await this.project(orgId, projectName);
    return { rules: (await this.deps.store.listAlertRules(orgId, project.id)).map(presentRule) };
  }

  async createRule(
    by: AuditContext,
    body: { projectName: string; name: string; condition: ConditionInput; destinationIds: number[]; enabled?: boolean },
  ) {
    const input: NewAlertRule = {
      name: alertName(body.name),
      condition: normalizeCondition(body.condition),
      destinationIds: await this.checkDestinations(by.orgId, body.destinationIds),
      enabled: body.enabled ?? true,
    };
    const project = await this.project(by.orgId, body.projectName);
    const rule = await this.audit.write(by, "createAlertRule", [by.orgId, project.id, input, this.deps.clock.now()], (made) =>
      made ? [ruleFact("alert_rule.create", made, { condition: made.condition.type, enabled: made.enabled })] : [],
    );
    if (!rule) throw projectNotFound(body.projectName);
    this.evaluator.invalidateProject(project.id);
    return { rule: presentRule(rule) };
  }

  async updateRule(
    by: AuditContext,
    ruleId: number,
    body: { name?: string; condition?: ConditionInput; destinationIds?: number[]; enabled?: boolean },
  ) {
    const change: Partial<NewAlertRule> = {};
    if (body.name !== undefined) change.name = alertName(body.name);
    if (body.condition !== undefined) change.condition = normalizeCondition(body.condition);
    if (body.destinationIds !== undefined) change.destinationIds = await this.checkDestinations(by.orgId, body.destinationIds);
    if (body.enabled !== undefined) change.enabled = body.enabled;
    const rule = await this.audit.write(by, "updateAlertRule", [by.orgId, ruleId, change, this.deps.clock.now()], (changed) =>
      changed ? [ruleFact("alert_rule.update", changed, { changed: Object.keys(change) })] : [],
    );
    if (!rule) throw notFound("rule", ruleId);
    this.evaluator.invalidateProject(rule.projectId);
    return { rule: presentRule(rule) };
  }

  async deleteRule(by: AuditContext, ruleId: number) {
    const rule = await this.deps.store.getAlertRule(by.orgId, ruleId);
    const deleted =
      rule &&
      (await this.audit.write(by, "deleteAlertRule", [by.orgId, ruleId], (done) => (done ? [ruleFact("alert_rule.delete", rule)] : [])));
    if (!rule || !deleted) throw notFound("rule", ruleId);
    this.evaluator.invalidateProject(rule.projectId);
    return { success: true };
  }

  async listEvents(orgId: string, query: { projectName: string; runId?: number; limit: number; cursor?: string }) {
    const project = await this.project(orgId, query.projectName);
    const page = { runId: query.runId ?? null, limit: query.limit, beforeId: parseCursor(query.cursor) };
    const events = await this.deps.store.listAlertEvents(orgId, project.id, page);
    return { events, nextCursor: nextCursor(events, query.limit, events.at(-1)?.id) };
  }

  async listDeliveries(orgId: string, query: { status?: DeliveryStatus; limit: number; cursor?: string }) {
    const page = { status: query.status ?? null, limit: query.limit, beforeSeq: parseCursor(query.cursor) };
    const deliveries = await this.deps.store.listAlertDeliveries(orgId, page);
    return {
      deliveries: deliveries.map(({ seq: _seq, ...delivery }) => delivery),
      nextCursor: nextCursor(deliveries, query.limit, deliveries.at(-1)?.seq),
    };
  }

  async retryDelivery(orgId: string, deliveryId: string) {
    if (!(await this.deps.store.retryAlertDelivery(orgId, deliveryId, this.deps.clock.now()))) {
      throw notFound("failed delivery", deliveryId);
    }
    this.evaluator.onQueued();
    return { success: true };
  }
}
