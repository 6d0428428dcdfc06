import { type Static, Type } from "typebox";
import { ALERT_LEVELS, CONDITION_TYPES, ENDED_STATUSES, MAX_CONSECUTIVE, MIN_STALLED_SECONDS } from "../../domain/alerts/conditions.js";
import {
  MAX_ALERT_NAME_LENGTH,
  MAX_DESTINATION_URL_LENGTH,
  MAX_RULE_DESTINATIONS,
  MAX_SECRET_LENGTH,
  MIN_SECRET_LENGTH,
} from "../../domain/alerts/rules.js";
import { ProjectName, RunId } from "./common.js";

/** Alert destinations, rules, events and deliveries (docs/api.md, "Alerts"). Times are epoch milliseconds. */

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Millis = Type.Integer({ description: "Epoch milliseconds." });
const NullableMillis = Type.Union([Millis, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Name = Type.String({ minLength: 1, maxLength: MAX_ALERT_NAME_LENGTH });
const Metric = Type.String({ minLength: 1, maxLength: 255, description: 'An exact metric name, or "*" for every metric of the run.' });
const DestinationKind = Type.Union([Type.Literal("webhook"), Type.Literal("slack")]);
const DeliveryStatus = Type.Union([Type.Literal("pending"), Type.Literal("delivered"), Type.Literal("failed")]);
const Level = Type.Enum(ALERT_LEVELS);
const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
const Cursor = Type.String({ minLength: 1, maxLength: 32, description: "The nextCursor of the previous page." });

// Each branch names its own fields; fields of other types are ignored (services/alerts.ts keeps only the branch's).
const ConditionBranches = Type.Union([
  Type.Object({ type: Type.Literal("non_finite"), metric: Metric }),
  Type.Object({
    type: Type.Literal("threshold"),
    metric: Metric,
    op: Type.Union([Type.Literal("above"), Type.Literal("below")]),
    value: Type.Number(),
    consecutive: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONSECUTIVE, description: "Default 1." })),
  }),
  Type.Object({ type: Type.Literal("stalled"), afterSeconds: Type.Integer({ minimum: MIN_STALLED_SECONDS, maximum: 30 * 86_400 }) }),
  Type.Object({
    type: Type.Literal("status"),
    statuses: Type.Array(Type.Enum(ENDED_STATUSES), { minItems: 1, maxItems: ENDED_STATUSES.length }),
  }),
  Type.Object({ type: Type.Literal("client_alert"), minLevel: Type.Optional(Level) }),
]);

// One branch chosen by `type` (Ajv's discriminator, src/app.ts), so a refusal names that branch's
// field ("condition.afterSeconds …"), not the first branch's.
export const Condition = Type.Unsafe<Static<typeof ConditionBranches>>({
  type: "object",
  required: ["type"],
  oneOf: ConditionBranches.anyOf,
  discriminator: { propertyName: "type" },
  description: `One of the condition types ${CONDITION_TYPES.join(", ")} (docs/api.md, "Alerts").`,
});

// Responses carry the condition as stored (defaults filled in); one object schema serializes every type.
const StoredCondition = Type.Object({ type: Type.String() }, { additionalProperties: true, description: "The condition as stored." });

export const Destination = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: DestinationKind,
  url: Type.String(),
  createdAt: Millis,
});

export const DestinationIdParams = Type.Object({ destinationId: Id });
export const RuleIdParams = Type.Object({ ruleId: Id });
export const DeliveryIdParams = Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateDestinationBody = Type.Object(
  {
    name: Name,
    kind: DestinationKind,
    url: Type.String({ minLength: 1, maxLength: MAX_DESTINATION_URL_LENGTH, examples: ["https://hooks.example.com/stepwise"] }),
    secret: Type.Optional(
      Type.String({
        minLength: MIN_SECRET_LENGTH,
        maxLength: MAX_SECRET_LENGTH,
        examples: ["a-shared-secret-of-32-characters"],
        description: "The webhook's signing secret; generated (32 random bytes, base64url) when absent.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const DestinationListResponse = Type.Object({ destinations: Type.Array(Destination) });
export const CreateDestinationResponse = Type.Object({
  destination: Destination,
  secret: Type.Union([Type.String(), Type.Null()], { description: "The webhook's signing secret: answered here only, never again." }),
});
export const TestDeliveryResponse = Type.Object({ deliveryId: Type.String() });

export const Rule = Type.Object({
  id: Type.Integer(),
  projectName: Type.String(),
  name: Type.String(),
  condition: StoredCondition,
  destinationIds: Type.Array(Type.Integer()),
  enabled: Type.Boolean(),
  createdAt: Millis,
  updatedAt: Millis,
});

const DestinationIds = Type.Array(Id, { maxItems: MAX_RULE_DESTINATIONS });
export const ListRulesQuery = Type.Object({ projectName: ProjectName }, { additionalProperties: false });
export const CreateRuleBody = Type.Object(
  { projectName: ProjectName, name: Name, condition: Condition, destinationIds: DestinationIds, enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(Name),
    condition: Type.Optional(Condition),
    destinationIds: Type.Optional(DestinationIds),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const RuleResponse = Type.Object({ rule: Rule });
export const RuleListResponse = Type.Object({ rules: Type.Array(Rule) });

const DeliveryFields = {
  id: Type.String({ description: "The delivery ID (a UUID), the same on every attempt." }),
  destinationId: Type.Integer(),
  destinationName: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  lastError: NullableString,
  nextAttemptAt: NullableMillis,
  deliveredAt: NullableMillis,
};
const Delivery = Type.Object(DeliveryFields);

export const AlertEvent = Type.Object({
  id: Type.Integer(),
  ruleId: Type.Union([Type.Integer(), Type.Null()]),
  ruleName: NullableString,
  runId: Type.Integer(),
  runName: Type.String(),
  projectName: Type.String(),
  kind: Type.String(),
  title: Type.String(),
  body: Type.String(),
  level: Type.String(),
  createdAt: Millis,
  deliveries: Type.Array(Delivery),
});

export const ListEventsQuery = Type.Object(
  { projectName: ProjectName, runId: Type.Optional(RunId), limit: Limit, cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export const EventListResponse = Type.Object({ events: Type.Array(AlertEvent), nextCursor: NullableString });

export const ListDeliveriesQuery = Type.Object(
  { status: Type.Optional(DeliveryStatus), limit: Limit, cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);
export const DeliveryListResponse = Type.Object({
  deliveries: Type.Array(Type.Object({ ...DeliveryFields, eventId: Type.Integer(), title: Type.String(), createdAt: Millis })),
  nextCursor: NullableString,
});
