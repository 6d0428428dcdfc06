import type { Role } from "./roles.js";

/**
 * The rules of OpenID Connect single sign-on (docs/api.md, "Single sign-on"): where a sign-in may
 * return to, which emails are trusted, and who becomes a member. Pure: the routes and the service
 * (src/services/oidc.ts) gather the facts, these decide.
 */

/** How long a sign-in started at the provider may take to come back (the pending login's life). */
export const PENDING_LOGIN_TTL_MS = 10 * 60_000;

/** Where a sign-in returns when it names no place, or a place that is not a path of this server. */
export const DEFAULT_RETURN_TO = "/projects";

const MAX_RETURN_TO = 2048;

/**
 * A same-origin path to return to after sign-in, or DEFAULT_RETURN_TO. Never an open redirect: a
 * full URL, a scheme-relative `//host`, a backslash (browsers read `/\host` as `//host`), control
 * characters or anything not starting with `/` is refused.
 */
export function safeReturnTo(raw: unknown): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_RETURN_TO) return DEFAULT_RETURN_TO;
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.includes("\\")) return DEFAULT_RETURN_TO;
  if (/[\u0000-\u001f\u007f]/.test(raw)) return DEFAULT_RETURN_TO;
  // The API's own routes are not pages to land on.
  if (raw === "/api" || raw.startsWith("/api/") || raw.startsWith("/api?")) return DEFAULT_RETURN_TO;
  return raw;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** `example.com, Lab.Example.org` → ["example.com", "lab.example.org"]; a value that is no domain name throws. */
export function parseAllowedDomains(text: string): string[] {
  const domains = text
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== "");
  for (const domain of domains) {
    if (!DOMAIN.test(domain)) throw new Error(`'${domain}' is not a domain name like example.com`);
  }
  return [...new Set(domains)];
}

/** The domain of an email address, lowercased; undefined when the text is no address. */
export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf("@");
  if (at <= 0 || at === email.length - 1) return undefined;
  return email.slice(at + 1).toLowerCase();
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why a sign-in with the provider was refused: the code the UI's sign-in page shows a message for
 * (`/signin?error=<code>`), and the JSON answer's status for an API client.
 */
export const SSO_REFUSALS = {
  sso_off: { status: 404, message: "single sign-on is not configured on this server" },
  sso_state: {
    status: 400,
    message: "this sign-in is unknown, expired or already used (or was started in another browser): start again",
  },
  sso_denied: { status: 401, message: "the identity provider refused the sign-in" },
  sso_code: { status: 401, message: "the identity provider refused the authorization code (used already, or expired)" },
  sso_token: { status: 401, message: "the identity provider's ID token failed verification (issuer, audience, nonce or signature)" },
  sso_token_expired: { status: 401, message: "the identity provider's ID token has expired" },
  sso_email_missing: { status: 401, message: "the identity provider sent no email address (ask for the 'email' scope)" },
  sso_email_unverified: { status: 401, message: "the identity provider does not assert that this email address is verified" },
  sso_not_member: {
    status: 403,
    message:
      "this email address is not a member of an organization here, and its domain does not join automatically: ask an admin for an invitation",
  },
  sso_unavailable: { status: 503, message: "the identity provider cannot be reached: try again later" },
  /** Only a browser sees it (`/signin?error=sso_failed`): an API client gets the server's own error. */
  sso_failed: { status: 500, message: "the sign-in failed on this server: try again, or tell the administrator" },
} as const satisfies Record<string, { status: number; message: string }>;

export type SsoRefusalCode = keyof typeof SSO_REFUSALS;

const REFUSALS = new Map<string, { status: number; message: string }>(Object.entries(SSO_REFUSALS));

/** The status and message of a refusal (looked up in a Map: codes come back from query strings). */
export function refusalOf(code: SsoRefusalCode): { status: number; message: string } {
  return REFUSALS.get(code)!;
}

/** A refusal of a sign-in: its code and the message shown for it. */
export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoRefusalCode,
    detail?: string,
  ) {
    super(detail ? `${refusalOf(code).message} (${detail})` : refusalOf(code).message);
    this.name = "SsoRefusal";
  }
}

/** The claims sign-in reads, as the provider sent them (ID token, else userinfo). */
export interface IdentityClaims {
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

/** A verified identity: a lowercased email the provider asserts is verified, and a name to show. */
export interface VerifiedIdentity {
  email: string;
  displayName: string;
}

/**
 * The email a sign-in may use: present, an address, and `email_verified` exactly true (a string
 * "true" from a non-conforming provider is not trusted). Throws the refusal otherwise.
 */
export function verifiedIdentity(claims: IdentityClaims): VerifiedIdentity {
  if (typeof claims.email !== "string" || emailDomain(claims.email) === undefined || claims.email.length > 320)
    throw new SsoRefusal("sso_email_missing");
  if (claims.email_verified !== true) throw new SsoRefusal("sso_email_unverified");
  const email = claims.email.trim().toLowerCase();
  const name = typeof claims.name === "string" ? claims.name.trim().slice(0, 200) : "";
  return { email, displayName: name === "" ? email : name };
}

/** What sign-in knows of a person before deciding. */
export interface SignInFacts {
  identity: VerifiedIdentity;
  /** The person's organizations (none when no user has this email). */
  memberships: readonly { orgId: string; orgSlug: string }[];
  /** The organization allowed domains join (--oidc-organization), when it exists. */
  organization: { id: string; slug: string } | undefined;
  allowedDomains: readonly string[];
  defaultRole: Role;
}

export type SignInDecision =
  /** A member already: a session in this organization. */
  | { kind: "session"; orgId: string }
  /** An allowed domain: becomes a member of this organization with this role (and a user, when none has the email). */
  | { kind: "join"; orgId: string; role: Role };

/**
 * Which organization a verified person signs in to: the configured one when a member of it, else
 * their first; a person of no organization whose email's domain is allowed joins the configured
 * one with the default role (so does a person of other organizations only); anyone else is refused.
 */
export function decideSignIn(facts: SignInFacts): SignInDecision {
  const { organization, memberships } = facts;
  const preferred = organization && memberships.find((m) => m.orgId === organization.id);
  if (preferred) return { kind: "session", orgId: preferred.orgId };
  const domain = emailDomain(facts.identity.email);
  if (organization && domain !== undefined && facts.allowedDomains.includes(domain))
    return { kind: "join", orgId: organization.id, role: facts.defaultRole };
  const first = memberships[0];
  if (first) return { kind: "session", orgId: first.orgId };
  throw new SsoRefusal("sso_not_member");
}
