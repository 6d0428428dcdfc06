import { DomainError } from "../domain/errors.js";
import { assertPasswordAcceptable, hashPassword, verifyPassword } from "../domain/passwords.js";
import {
  accountKey,
  addressKey,
  assertInvitationUsable,
  assertMayManage,
  defaultName,
  hashInvitationToken,
  INVITATION_TTL_MS,
  linkMaySetPassword,
  newInvitationToken,
  normalizeEmail,
  retryAfterSeconds,
  SIGN_IN_LIMITS,
  type SignInLimits,
  TooManyAttempts,
  wrongCredentials,
} from "../domain/people.js";
import type { Role } from "../domain/roles.js";
import type { Clock } from "../domain/time.js";
import type { InvitationDetails } from "../store/people-store.js";
import { cliAuditContext, type AuditContext, type AuditLog } from "./audit.js";
import type { Member, Store, User } from "../store/store.js";

/** Who asks for a change of members: a member with its role, or null for the operator's CLI. */
export type Manager = { userId: string; role: Role } | null;

/**
 * A new invitation: the link's token is returned once and never stored. Null (with expiresAt) when
 * the link could not set the person's password (domain/people.ts linkMaySetPassword): the person
 * signs in with the password or sign-on it has, and finds the organization among its own.
 */
export interface Invited {
  user: User;
  role: Role;
  token: string | null;
  expiresAt: number | null;
}

/**
 * People of an organization (docs/semantics.md, "People, roles and sign-in"): invitations,
 * passwords, password sign-in with its limits, and members' roles. The rules are domain/people.ts's
 * and domain/passwords.ts's; every state (invitations, failures) is in the store, so several
 * processes on one database act as one.
 */
export class PeopleService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly limits: SignInLimits = SIGN_IN_LIMITS,
  ) {}

  /**
   * Makes the person of that email (found, or created) a member and returns an invitation link's
   * token. A role left out is member for a new membership and the current one for a member; a
   * different role for an existing member is a CONFLICT (change roles with setRole). The operator's
   * link (manager null) sets a new password for a person who has one; an admin's link is made only
   * when it may set the password (docs/semantics.md, "Invitations").
   */
  async invite(
    orgId: string,
    input: { email: string; name?: string; role?: Role },
    manager: Manager,
    context: AuditContext = cliAuditContext(orgId),
  ): Promise<Invited> {
    const email = normalizeEmail(input.email);
    const now = this.clock.now();
    let user = await this.store.getUserByEmail(email);
    const current = user && (await this.store.getMembership(orgId, user.id));
    if (manager) assertMayManage(manager.role, current?.role, input.role);
    if (current && input.role !== undefined && input.role !== current.role)
      throw new DomainError(
        "CONFLICT",
        `${email} is a member already, with the role '${current.role}': change the role instead (users set-role, POST /api/members/:userId/role)`,
      );
    if (!user) {
      try {
        user = await this.store.createUser({ orgId, email, name: input.name?.trim() || defaultName(email), kind: "person" }, now);
      } catch (error) {
        // Invited to two organizations at once: the other invitation created the person first.
        if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
        user = (await this.store.getUserByEmail(email))!;
      }
    }
    const role = current?.role ?? input.role ?? "member";
    const otherOrganizations = (await this.store.listMemberships(user.id)).filter((m) => m.orgId !== orgId).length;
    const hasPassword = (await this.store.getPasswordHash(user.id)) !== undefined;
    if (!current) {
      const target = { type: "user" as const, id: user.id };
      await this.audit.write(context, "setMembership", [orgId, user.id, role, now], () => [
        { action: "member.add", target, details: { role, via: "invitation" } },
      ]);
    }
    if (!linkMaySetPassword({ createdBy: manager?.userId ?? null, hasPassword, otherOrganizations }))
      return { user, role, token: null, expiresAt: null };
    const { token, tokenHash } = newInvitationToken();
    const expiresAt = now + INVITATION_TTL_MS;
    await this.store.createInvitation({ tokenHash, orgId, userId: user.id, createdBy: manager?.userId ?? null, createdAt: now, expiresAt });
    return { user, role, token, expiresAt };
  }

  /** The invitation of a link's token, when it can still be used (the invitation page shows whom it is for). */
  async invitation(token: string): Promise<InvitationDetails> {
    const invitation = await this.store.getInvitation(hashInvitationToken(token));
    if (!invitation) throw new DomainError("NOT_FOUND", "unknown invitation link: it may have been replaced by a newer one");
    assertInvitationUsable(invitation, this.clock.now());
    return invitation;
  }

  /**
   * Sets the password of an invitation and uses it up. The link is checked before the password is
   * hashed (a made-up token costs no scrypt), and again by the store as it marks it used.
   */
  async accept(token: string, password: string, name: string | undefined): Promise<InvitationDetails> {
    await this.invitation(token);
    assertPasswordAcceptable(password);
    const hash = await hashPassword(password);
    return this.store.acceptInvitation(hashInvitationToken(token), hash, name?.trim() || null, this.clock.now());
  }

  /**
   * A wrong password for a person who exists goes into the audit log of each organization it
   * belongs to (an unknown email has no organization: only the sign-in limits count it).
   */
  private async recordFailure(user: User, sourceIp: string): Promise<void> {
    for (const membership of await this.store.listMemberships(user.id))
      await this.audit.record(
        { orgId: membership.orgId, actor: { userId: user.id, apiKeyId: null }, sourceIp },
        { action: "sign_in_failed", target: { type: "user", id: user.id }, details: { method: "password" } },
      );
  }

  /**
   * Checks an email and password, within the limits on failures per account and per address
   * (429 when over either: no password is tried then). A wrong password and an unknown email are
   * one answer, after the same work. Signs in to the organization named, else the person's first.
   */
  async signIn(
    input: { email: string; password: string; organization?: string },
    sourceIp: string,
  ): Promise<{ userId: string; orgId: string; orgSlug: string; role: Role }> {
    const email = normalizeEmail(input.email);
    const keys = [accountKey(email), addressKey(sourceIp)];
    await this.assertWithinLimits(keys);
    const user = await this.store.getUserByEmail(email);
    const stored = user && user.kind === "person" ? await this.store.getPasswordHash(user.id) : undefined;
    if (!(await verifyPassword(input.password, stored)) || !user) {
      const now = this.clock.now();
      await this.store.recordSignInFailure(keys, now, now - this.limits.windowMs);
      if (user) await this.recordFailure(user, sourceIp);
      throw wrongCredentials();
    }
    await this.store.clearSignInFailures(keys[0]!);
    const memberships = await this.store.listMemberships(user.id);
    const membership = input.organization === undefined ? memberships[0] : memberships.find((m) => m.orgSlug === input.organization);
    if (!membership)
      throw new DomainError(
        "FORBIDDEN",
        input.organization === undefined
          ? "you are not a member of any organization: ask an admin to invite you"
          : `you are not a member of an organization '${input.organization}'`,
      );
    return { userId: user.id, orgId: membership.orgId, orgSlug: membership.orgSlug, role: membership.role };
  }

  private async assertWithinLimits(keys: string[]): Promise<void> {
    const now = this.clock.now();
    const since = now - this.limits.windowMs;
    const [account, address] = [this.limits.perAccount, this.limits.perAddress];
    const waits = [
      retryAfterSeconds(await this.store.listSignInFailures(keys[0]!, since, account), account, this.limits.windowMs, now),
      retryAfterSeconds(await this.store.listSignInFailures(keys[1]!, since, address), address, this.limits.windowMs, now),
    ].filter((wait): wait is number => wait !== undefined);
    if (waits.length > 0) throw new TooManyAttempts(Math.max(...waits));
  }

  async members(orgId: string): Promise<Member[]> {
    return this.store.listMembers(orgId);
  }

  /** The member of that user ID in the organization; another organization's member is NOT_FOUND, as no member is. */
  async member(orgId: string, userId: string): Promise<Member> {
    const membership = await this.store.getMembership(orgId, userId);
    const user = membership && (await this.store.getUser(userId));
    if (!membership || !user) throw new DomainError("NOT_FOUND", `no member '${userId}' in this organization`);
    return { ...membership, user };
  }

  /** The member of that email (the CLI names people by email). */
  async memberByEmail(orgId: string, rawEmail: string): Promise<Member> {
    const email = normalizeEmail(rawEmail);
    const user = await this.store.getUserByEmail(email);
    if (!user) throw new DomainError("NOT_FOUND", `no person with the email '${email}'`);
    const membership = await this.store.getMembership(orgId, user.id);
    if (!membership) throw new DomainError("NOT_FOUND", `${email} is not a member of this organization`);
    return { ...membership, user };
  }

  /** Changes a member's role; it acts at the member's next request (keys and sessions read it each time). */
  async setRole(
    orgId: string,
    userId: string,
    role: Role,
    manager: Manager,
    context: AuditContext = cliAuditContext(orgId),
  ): Promise<Member> {
    const member = await this.member(orgId, userId);
    if (manager) assertMayManage(manager.role, member.role, role);
    const fact = {
      action: "member.role" as const,
      target: { type: "user" as const, id: userId },
      details: { from: member.role, to: role },
    };
    const membership = await this.audit.write(context, "setMembership", [orgId, userId, role, this.clock.now()], () => [fact]);
    return { ...membership, user: member.user };
  }

  /** Removes a member: its keys in the organization are revoked and its sessions there end, at once. */
  async remove(orgId: string, userId: string, manager: Manager, context: AuditContext = cliAuditContext(orgId)): Promise<Member> {
    const member = await this.member(orgId, userId);
    if (manager) assertMayManage(manager.role, member.role, undefined);
    const fact = { action: "member.remove" as const, target: { type: "user" as const, id: userId }, details: { role: member.role } };
    if (!(await this.audit.write(context, "removeMembership", [orgId, userId, this.clock.now()], () => [fact])))
      throw new DomainError("NOT_FOUND", `no member '${userId}' in this organization`);
    return member;
  }

  /** The UI's API-key sign-in is for single-user installs: off once any person has a password. */
  async apiKeySignInAllowed(): Promise<boolean> {
    return !(await this.store.anyPasswordSet());
  }
}
