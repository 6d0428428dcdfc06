import { type Static, Type } from "typebox";
import type { Role } from "../../domain/roles.js";

/** The four roles of domain/roles.ts (the compiler checks they agree, below). */
export const RoleSchema = Type.Union([Type.Literal("viewer"), Type.Literal("member"), Type.Literal("admin"), Type.Literal("owner")], {
  description: "viewer < member < admin < owner (docs/semantics.md, Roles)",
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const rolesAgree: Same<Static<typeof RoleSchema>, Role> = true;
void rolesAgree;

export const UserItem = Type.Object({
  id: Type.String(),
  email: Type.Union([Type.String(), Type.Null()], { description: "A person's email; null for a service account" }),
  name: Type.String({ description: "A person's display name, or a service account's name" }),
  kind: Type.Union([Type.Literal("person"), Type.Literal("service")]),
});

export const SessionResponse = Type.Object({
  user: UserItem,
  organization: Type.Object({ id: Type.String(), slug: Type.String() }),
  role: RoleSchema,
  /** Null when a key, not a session cookie, authenticated the request. */
  csrfToken: Type.Union([Type.String(), Type.Null()], {
    description: "Send it as the x-csrf-token header on every write made with the session cookie; null when a key authenticated",
  }),
  organizations: Type.Array(Type.Object({ slug: Type.String(), role: RoleSchema })),
});

export const SwitchOrganizationBody = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 63 }) }, { additionalProperties: false });
