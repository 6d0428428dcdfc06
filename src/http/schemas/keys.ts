import { Type } from "typebox";
import { NullableTimestamp, Timestamp } from "./common.js";
import { RoleSchema, UserItem } from "./sessions.js";

const NullableRole = Type.Union([RoleSchema, Type.Null()]);

/** An API key as listed: never the key itself, which is answered once, when made. */
export const KeyItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  displayPrefix: Type.String({ description: "The key's first characters (sw_ and 6 more), to recognise it" }),
  user: Type.Union([UserItem, Type.Null()], { description: "The person or service account the key belongs to" }),
  role: Type.Union([RoleSchema, Type.Null()], {
    description: "The key's cap; null when it acts with its owner's role, whatever that becomes",
  }),
  memberRole: Type.Union([RoleSchema, Type.Null()], {
    description: "The owner's role in the organization now; null once removed (the key no longer works)",
  }),
  createdAt: Timestamp,
  expiresAt: NullableTimestamp,
  revokedAt: NullableTimestamp,
});

export const ListKeysQuery = Type.Object(
  {
    all: Type.Optional(Type.Boolean({ description: "Every key of the organization, not only the caller's own (admin)" })),
  },
  { additionalProperties: false },
);

export const KeyListResponse = Type.Object({ keys: Type.Array(KeyItem) });

export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, examples: ["laptop"] }),
    role: Type.Optional(NullableRole),
    expiresIn: Type.Optional(
      Type.Union([Type.String({ maxLength: 20, examples: ["30d"] }), Type.Null()], {
        description: "Lifetime: <n>s, <n>m, <n>h or <n>d, at most 36500d; absent or null: never expires",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CreateKeyResponse = Type.Object({
  key: Type.String({ description: "The key: shown this once, never again (only its hash is stored)" }),
  apiKey: KeyItem,
});

export const KeyIdParams = Type.Object({ keyId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const KeyResponse = Type.Object({ apiKey: KeyItem });
