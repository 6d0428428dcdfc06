import { Type } from "typebox";
import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH } from "../../domain/people-limits.js";
import { ErrorResponse, Timestamp } from "./common.js";
import { RoleSchema, UserItem } from "./sessions.js";

const Email = Type.String({ minLength: 3, maxLength: EMAIL_MAX_LENGTH, description: "Compared lowercased" });
const DisplayName = Type.String({ minLength: 1, maxLength: 200 });
// The minimum length is the domain's rule (domain/passwords.ts), answered with its own message.
const Password = Type.String({ maxLength: PASSWORD_MAX_LENGTH, description: "At least 10 characters (docs/semantics.md, Passwords)" });
const Slug = Type.String({ minLength: 1, maxLength: 63 });

export const SignInBody = Type.Object(
  {
    email: Email,
    password: Password,
    organization: Type.Optional(Type.String({ ...Slug, description: "The organization to sign in to; default: your first by slug" })),
  },
  { additionalProperties: false },
);

export const SignedInResponse = Type.Object({
  csrfToken: Type.String({ description: "Send it as the x-csrf-token header on every write made with the session cookie" }),
  organization: Type.Object({ id: Type.String(), slug: Type.String() }),
  role: RoleSchema,
});

export const InvitationToken = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

export const InvitationResponse = Type.Object({
  email: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  organization: Type.Object({ slug: Type.String() }),
  expiresAt: Timestamp,
  hasPassword: Type.Boolean({ description: "The person has a password already: accepting (an operator's link) sets a new one" }),
});

export const AcceptInvitationBody = Type.Object({ password: Password, name: Type.Optional(DisplayName) }, { additionalProperties: false });

export const MemberItem = Type.Object({
  user: UserItem,
  role: RoleSchema,
  joinedAt: Timestamp,
});

export const MemberListResponse = Type.Object({ members: Type.Array(MemberItem) });

export const InviteBody = Type.Object(
  {
    email: Email,
    name: Type.Optional(DisplayName),
    role: Type.Optional(RoleSchema),
  },
  { additionalProperties: false },
);

export const InviteResponse = Type.Object({
  member: MemberItem,
  invitationUrl: Type.Union([Type.String(), Type.Null()], {
    description:
      "The one-time link that sets the person's password, shown only this once; null when the person has a password or belongs to another organization (they sign in as they do)",
  }),
  expiresAt: Type.Union([Timestamp, Type.Null()]),
});

export const MemberParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 64 }) });
export const SetRoleBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });
export const MemberResponse = Type.Object({ member: MemberItem });

export const PEOPLE_ERRORS = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  409: ErrorResponse,
};
