import { Type } from "typebox";
import { AUDIT_ACTIONS, AUDIT_TARGET_TYPES, MAX_AUDIT_TEXT } from "../../domain/audit.js";
import { AnyJson, Timestamp } from "./common.js";

/** GET /api/audit (docs/api.md, "Audit log"). */
export const AuditQuery = Type.Object(
  {
    action: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "One action (`runs.delete`) or a prefix of actions ending in '.' (`key.`, `alert_rule.`).",
      }),
    ),
    actor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_AUDIT_TEXT,
        description: "The actor's user ID, or its label (an email, `cli`, `system`).",
      }),
    ),
    targetType: Type.Optional(Type.Enum(AUDIT_TARGET_TYPES)),
    targetId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUDIT_TEXT })),
    since: Type.Optional(Type.String({ format: "date-time", description: "Entries at or after this time (ISO 8601)." })),
    until: Type.Optional(Type.String({ format: "date-time", description: "Entries before this time (ISO 8601)." })),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The nextPageToken of the previous page." })),
  },
  { additionalProperties: false },
);

export const AuditEntry = Type.Object({
  id: Type.Integer({ description: "Grows with every entry: the log's order." }),
  at: Timestamp,
  action: Type.Enum(AUDIT_ACTIONS),
  actor: Type.Object({
    userId: Type.Union([Type.String(), Type.Null()]),
    apiKeyId: Type.Union([Type.String(), Type.Null()]),
    label: Type.String({ description: "An email, a service account's name, `cli` or `system`: as it was when the entry was written." }),
  }),
  sourceIp: Type.Union([Type.String(), Type.Null()], { description: "The client's address; null from the CLI and the server's jobs." }),
  target: Type.Union([Type.Object({ type: Type.Enum(AUDIT_TARGET_TYPES), id: Type.String() }), Type.Null()]),
  details: Type.Union([Type.Record(Type.String(), AnyJson), Type.Null()]),
});

export const AuditListResponse = Type.Object({
  entries: Type.Array(AuditEntry),
  nextPageToken: Type.Union([Type.String(), Type.Null()], { description: "null on the last page." }),
});
