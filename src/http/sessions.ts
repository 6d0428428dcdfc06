import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_COOKIE } from "../domain/sessions.js";
import type { SessionService } from "../services/sessions.js";
import { servedOverHttps } from "./urls.js";

/**
 * Signs the request's browser in (password, single sign-on): ends the session its cookie held, if
 * any, and sets a new session's cookie — HttpOnly (scripts never read it), SameSite=Lax (other
 * sites' requests do not carry it, except top-level navigation back from a sign-on provider),
 * Secure when served over HTTPS.
 */
export async function signIn(
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: SessionService,
  publicUrl: string,
  member: { userId: string; orgId: string },
): Promise<{ csrfToken: string }> {
  await endCookieSession(request, sessions);
  const started = await sessions.start({ ...member, sourceIp: request.ip, userAgent: request.headers["user-agent"] ?? null });
  reply.setCookie(SESSION_COOKIE, started.token, {
    httpOnly: true,
    sameSite: "lax",
    secure: servedOverHttps(request, publicUrl),
    path: "/",
    expires: new Date(started.expiresAt),
  });
  return { csrfToken: started.csrfToken };
}

/** Ends the session of the request's cookie (whatever its state) and clears the cookie. */
export async function signOut(request: FastifyRequest, reply: FastifyReply, sessions: SessionService, publicUrl: string): Promise<void> {
  await endCookieSession(request, sessions);
  reply.clearCookie(SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "lax", secure: servedOverHttps(request, publicUrl) });
}

async function endCookieSession(request: FastifyRequest, sessions: SessionService): Promise<void> {
  const token = request.cookies?.[SESSION_COOKIE];
  if (!token) return;
  const session = await sessions.find(token);
  if (session) await sessions.end(session.id);
}
