import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { auditContext } from "../audit-context.js";
import type { RouteDeps } from "../deps.js";
import { ErrorResponse, STANDARD_ERRORS, SuccessResponse } from "../schemas/common.js";
import {
  CreateDestinationBody,
  CreateDestinationResponse,
  CreateRuleBody,
  DeliveryIdParams,
  DeliveryListResponse,
  DestinationIdParams,
  DestinationListResponse,
  EventListResponse,
  ListDeliveriesQuery,
  ListEventsQuery,
  ListRulesQuery,
  RuleIdParams,
  RuleListResponse,
  RuleResponse,
  TestDeliveryResponse,
  UpdateRuleBody,
} from "../schemas/alerts.js";

const tags = ["alerts"];
const WRITE_ERRORS = { ...STANDARD_ERRORS, 409: ErrorResponse };
/**
 * Destinations (where alerts go: webhooks, mail) are an admin's; rules, events and retrying a delivery
 * a member's, reading them a viewer's (docs/semantics.md, "Roles").
 */
const ADMIN = { role: "admin" } as const;

/** Alert destinations, rules, events and deliveries of the key's organization (docs/api.md, "Alerts"). */
export function alertRoutes({ services }: RouteDeps): FastifyPluginAsyncTypebox {
  const alerts = services.alerts;
  return async (app) => {
    app.get(
      "/api/alerts/destinations",
      { schema: { tags, response: { 200: DestinationListResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.listDestinations(request.auth.orgId),
    );
    app.post(
      "/api/alerts/destinations",
      { config: ADMIN, schema: { tags, body: CreateDestinationBody, response: { 201: CreateDestinationResponse, ...WRITE_ERRORS } } },
      async (request, reply) => reply.code(201).send(await alerts.createDestination(auditContext(request), request.body)),
    );
    app.post(
      "/api/alerts/destinations/:destinationId/test",
      { config: ADMIN, schema: { tags, params: DestinationIdParams, response: { 202: TestDeliveryResponse, ...STANDARD_ERRORS } } },
      async (request, reply) => reply.code(202).send(await alerts.testDestination(request.auth.orgId, request.params.destinationId)),
    );

    app.get(
      "/api/alerts/rules",
      { schema: { tags, querystring: ListRulesQuery, response: { 200: RuleListResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.listRules(request.auth.orgId, request.query.projectName),
    );
    app.post(
      "/api/alerts/rules",
      { schema: { tags, body: CreateRuleBody, response: { 201: RuleResponse, ...WRITE_ERRORS } } },
      async (request, reply) => reply.code(201).send(await alerts.createRule(auditContext(request), request.body)),
    );
    app.patch(
      "/api/alerts/rules/:ruleId",
      { schema: { tags, params: RuleIdParams, body: UpdateRuleBody, response: { 200: RuleResponse, ...WRITE_ERRORS } } },
      async (request) => alerts.updateRule(auditContext(request), request.params.ruleId, request.body),
    );
    app.delete(
      "/api/alerts/rules/:ruleId",
      { schema: { tags, params: RuleIdParams, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.deleteRule(auditContext(request), request.params.ruleId),
    );

    app.get(
      "/api/alerts/events",
      { schema: { tags, querystring: ListEventsQuery, response: { 200: EventListResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.listEvents(request.auth.orgId, request.query),
    );
    app.get(
      "/api/alerts/deliveries",
      { schema: { tags, querystring: ListDeliveriesQuery, response: { 200: DeliveryListResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.listDeliveries(request.auth.orgId, request.query),
    );
    app.post(
      "/api/alerts/deliveries/:deliveryId/retry",
      { schema: { tags, params: DeliveryIdParams, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.retryDelivery(request.auth.orgId, request.params.deliveryId),
    );
    // Listed last in the OpenAPI document, after the routes that name a destination.
    app.delete(
      "/api/alerts/destinations/:destinationId",
      { config: ADMIN, schema: { tags, params: DestinationIdParams, response: { 200: SuccessResponse, ...STANDARD_ERRORS } } },
      async (request) => alerts.deleteDestination(auditContext(request), request.params.destinationId),
    );
  };
}
