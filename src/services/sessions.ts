import { randomUUID } from "node:crypto";
import { DomainError } from "../domain/errors.js";
import type { Role } from "../domain/roles.js";
import { assertSessionLive, hashSessionToken, newSessionSecrets, type SessionPolicy, shouldTouch } from "../domain/sessions.js";
import type { Clock } from "../domain/time.js";
import type { SessionRecord, Store } from "../store/store.js";

/** A live session as a request sees it: who, in which organization, with which role now. */
export interface LiveSession extends SessionRecord {
  orgSlug: string;
  role: Role;
}

/**
 * Browser sessions (docs/semantics.md, "Sessions"): kept in the store, so any process serving the
 * same store knows them, and ending one (sign-out, removal from the organization) takes effect at
 * the next request, in every process. HTTP (cookies, CSRF) is src/http/sessions.ts's.
 */
export class SessionService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    readonly policy: SessionPolicy,
  ) {}

  /**
   * Signs a user in to an organization it is a member of: always a new session with new secrets
   * (a session ID known before sign-in is never the one after it). Returns the cookie's token.
   */
  async start(input: { userId: string; orgId: string; sourceIp: string | null; userAgent: string | null }) {
    if (!(await this.store.getMembership(input.orgId, input.userId)))
      throw new DomainError("FORBIDDEN", "this user is not a member of the organization");
    const { token, tokenHash, csrfToken } = newSessionSecrets();
    const now = this.clock.now();
    const id = randomUUID();
    await this.store.createSession({
      id,
      tokenHash,
      csrfToken,
      userId: input.userId,
      orgId: input.orgId,
      createdAt: now,
      expiresAt: now + this.policy.maxAgeMs,
      sourceIp: input.sourceIp,
      userAgent: input.userAgent?.slice(0, 512) ?? null,
    });
    return { id, token, csrfToken, expiresAt: now + this.policy.maxAgeMs };
  }

  /** The session of a cookie's token, live or not. */
  async find(token: string): Promise<SessionRecord | undefined> {
    return this.store.getSessionByHash(hashSessionToken(token));
  }

  /** The live session of a cookie's token; throws INVALID_SESSION when it signs nobody in any more. */
  async resolve(token: string): Promise<LiveSession> {
    const session = await this.store.getSessionByHash(hashSessionToken(token));
    if (!session) throw new DomainError("INVALID_SESSION", "unknown session: sign in again");
    const now = this.clock.now();
    assertSessionLive(session, now, this.policy);
    if (session.memberRole === null)
      throw new DomainError("INVALID_SESSION", "you are no longer a member of this organization: sign in again");
    if (shouldTouch(session.lastSeenAt, now)) await this.store.touchSession(session.id, now);
    const { memberRole, ...rest } = session;
    return { ...rest, role: memberRole };
  }

  /** Moves the session to another organization of the user's. */
  async switchOrganization(sessionId: string, userId: string, orgSlug: string): Promise<void> {
    const organization = await this.store.getOrganizationBySlug(orgSlug);
    const membership = organization && (await this.store.getMembership(organization.id, userId));
    if (!organization || !membership) throw new DomainError("NOT_FOUND", `you are not a member of an organization '${orgSlug}'`);
    await this.store.setSessionOrganization(sessionId, organization.id);
  }

  async end(sessionId: string): Promise<void> {
    await this.store.endSession(sessionId, this.clock.now());
  }
}
