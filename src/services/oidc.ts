import { createHash } from "node:crypto";
import * as client from "openid-client";
import type { Config } from "../config.js";
import type { AuditLog } from "./audit.js";
import { DomainError } from "../domain/errors.js";
import {
  decideSignIn,
  isLoopbackHost,
  parseAllowedDomains,
  PENDING_LOGIN_TTL_MS,
  safeReturnTo,
  SsoRefusal,
  verifiedIdentity,
  type IdentityClaims,
  type VerifiedIdentity,
} from "../domain/oidc.js";
import type { Clock } from "../domain/time.js";
import type { Store } from "../store/store.js";

/** The scopes asked of the provider: the person's ID, their email (with email_verified) and name. */
const SCOPES = "openid email profile";

/** A discovery that failed is tried again after this long, not at every sign-in. */
const DISCOVERY_RETRY_MS = 10_000;

export const hashState = (state: string) => createHash("sha256").update(state).digest("hex");

/**
 * OpenID Connect single sign-on over `openid-client` (docs/decisions.md, "Single sign-on"): the
 * provider's metadata by discovery (once, kept), the authorization code flow with PKCE (S256), `state`
 * and `nonce`, and the ID token verified by the library (signature, issuer, audience, nonce, expiry,
 * against this server's clock). What a sign-in needs between the two legs is kept in the store
 * (`oidc_logins`), so the callback may reach any process on it, and is taken there once.
 */
export class OidcService {
  private discovered: Promise<client.ServerMetadata> | undefined;
  private failedAt = 0;
  private client: { server: client.ServerMetadata; skew: number; configuration: client.Configuration } | undefined;

  constructor(
    private readonly deps: { config: Config; store: Store; clock: Clock },
    private readonly audit: AuditLog,
  ) {}

  get enabled(): boolean {
    return this.deps.config.oidcIssuer !== "";
  }

  /**
   * Starts a sign-in: stores the pending login and returns the provider's authorization URL and the
   * `state` (which the route also binds to the browser with a cookie).
   */
  async begin(returnTo: unknown, redirectUri: string): Promise<{ url: string; state: string }> {
    const configuration = await this.configuration();
    const now = this.deps.clock.now();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    await this.deps.store.createOidcLogin({
      stateHash: hashState(state),
      nonce,
      codeVerifier,
      redirectUri,
      returnTo: safeReturnTo(returnTo),
      createdAt: now,
      expiresAt: now + PENDING_LOGIN_TTL_MS,
    });
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: SCOPES,
      response_type: "code",
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    return { url: url.href, state };
  }

  /**
   * Finishes a sign-in from the provider's redirect (`search`: its query string, as sent): takes
   * the pending login of its `state` (once), exchanges the code with the PKCE verifier, verifies the
   * ID token, and reads the email (from the ID token, or the userinfo endpoint when the provider
   * keeps it there). Throws SsoRefusal with the reason.
   */
  async complete(search: string, state: string | undefined): Promise<VerifiedIdentity & { returnTo: string }> {
    if (state === undefined || state === "") throw new SsoRefusal("sso_state");
    const login = await this.deps.store.takeOidcLogin(hashState(state), this.deps.clock.now());
    if (!login) throw new SsoRefusal("sso_state");
    const configuration = await this.configuration();
    let claims: IdentityClaims & { sub: string };
    try {
      const tokens = await client.authorizationCodeGrant(
        configuration,
        new URL(`${login.redirectUri}${search}`),
        { pkceCodeVerifier: login.codeVerifier, expectedState: state, expectedNonce: login.nonce, idTokenExpected: true },
        { redirect_uri: login.redirectUri },
      );
      claims = tokens.claims()!;
      if (claims.email === undefined || claims.email_verified === undefined) {
        // Conforming providers may keep the email out of an ID token issued with an access token.
        // The email and its verification are then both taken from userinfo (checked against the
        // token's sub), never one from each: email_verified speaks of the email beside it.
        const info = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
        claims = { ...claims, email: info.email, email_verified: info.email_verified, name: claims.name ?? info.name };
      }
    } catch (error) {
      throw refusalOf(error);
    }
    return { ...verifiedIdentity(claims), returnTo: login.returnTo };
  }

  /**
   * Who a verified person signs in as, and where (domain/oidc.ts decideSignIn): a member signs in
   * to the configured organization, else to its first; a person whose email's domain is allowed
   * becomes a member of the configured organization with the default role (and a user, when no
   * user has the email). Throws SsoRefusal sso_not_member otherwise.
   */
  async admit(identity: VerifiedIdentity, sourceIp: string | null): Promise<{ userId: string; orgId: string }> {
    const { store, config, clock } = this.deps;
    let user = await store.getUserByEmail(identity.email);
    const memberships = user ? await store.listMemberships(user.id) : [];
    const organization = await store.getOrganizationBySlug(config.oidcOrganization);
    const decision = decideSignIn({
      identity,
      memberships,
      organization,
      allowedDomains: parseAllowedDomains(config.oidcAllowedDomains),
      defaultRole: config.oidcDefaultRole,
    });
    if (decision.kind === "session") return { userId: user!.id, orgId: decision.orgId };
    const now = clock.now();
    if (!user) {
      try {
        user = await store.createUser({ orgId: decision.orgId, email: identity.email, name: identity.displayName, kind: "person" }, now);
      } catch (error) {
        // The same person signing in at once elsewhere created it first.
        if (!(error instanceof DomainError && error.code === "CONFLICT")) throw error;
        user = await store.getUserByEmail(identity.email);
        if (!user) throw error;
      }
    }
    // A role given meanwhile (by an admin, or another sign-in) is kept.
    if (!(await store.getMembership(decision.orgId, user.id))) {
      const joined = user;
      await this.audit.write(
        { orgId: decision.orgId, actor: { userId: joined.id, apiKeyId: null }, sourceIp },
        "setMembership",
        [decision.orgId, joined.id, decision.role, now],
        () => [{ action: "member.add", target: { type: "user", id: joined.id }, details: { role: decision.role, via: "sso" } }],
      );
    }
    return { userId: user.id, orgId: decision.orgId };
  }

  /**
   * The client's configuration at the provider: its metadata discovered once (a failed discovery is
   * tried again after DISCOVERY_RETRY_MS), and token times checked against this server's clock.
   */
  private async configuration(): Promise<client.Configuration> {
    const { config, clock } = this.deps;
    if (!this.enabled) throw new SsoRefusal("sso_off");
    const issuer = new URL(config.oidcIssuer);
    // http only for a provider on this machine (config.ts refuses any other http issuer).
    const insecure = issuer.protocol === "http:" && isLoopbackHost(issuer.hostname);
    const auth = config.oidcClientSecret === "" ? client.None() : client.ClientSecretBasic(config.oidcClientSecret);
    if (this.discovered === undefined) {
      if (this.failedAt !== 0 && clock.now() - this.failedAt < DISCOVERY_RETRY_MS) throw new SsoRefusal("sso_unavailable");
      this.discovered = client
        .discovery(issuer, config.oidcClientId, undefined, auth, { execute: insecure ? [client.allowInsecureRequests] : [], timeout: 10 })
        .then((found) => found.serverMetadata());
      this.discovered.catch(() => {
        this.discovered = undefined;
        this.failedAt = clock.now();
      });
    }
    let server: client.ServerMetadata;
    try {
      server = await this.discovered;
    } catch (error) {
      throw new SsoRefusal("sso_unavailable", (error as Error).message);
    }
    // The library checks the ID token's times against Date.now() + clockSkew: this server's clock.
    // Kept while the skew stays (always, on the system clock), so are the provider's keys it fetched.
    const skew = Math.round((clock.now() - Date.now()) / 1000);
    if (this.client?.server !== server || this.client.skew !== skew) {
      const configuration = new client.Configuration(server, config.oidcClientId, { [client.clockSkew]: skew }, auth);
      configuration.timeout = 10;
      if (insecure) client.allowInsecureRequests(configuration);
      this.client = { server, skew, configuration };
    }
    return this.client.configuration;
  }
}

/** A text field of the error or of one of its causes (the library wraps the check that failed, with its details). */
function found(error: unknown, field: string): string | undefined {
  for (let at = error, depth = 0; at !== null && typeof at === "object" && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const value = (at as Record<string, unknown>)[field];
    if (typeof value === "string") return value;
  }
  return undefined;
}

/** What the library's error means for the person signing in. */
function refusalOf(error: unknown): SsoRefusal {
  if (error instanceof SsoRefusal) return error;
  const code = (error as { code?: unknown }).code;
  const oauthError = found(error, "error");
  const cause = { claim: found(error, "claim") };
  switch (code) {
    case "OAUTH_AUTHORIZATION_RESPONSE_ERROR":
      return new SsoRefusal("sso_denied", oauthError);
    case "OAUTH_RESPONSE_BODY_ERROR":
      return oauthError === "invalid_grant" ? new SsoRefusal("sso_code") : new SsoRefusal("sso_denied", oauthError);
    case "OAUTH_JWT_TIMESTAMP_CHECK_FAILED":
      return cause?.claim === "exp" || cause?.claim === undefined ? new SsoRefusal("sso_token_expired") : new SsoRefusal("sso_token");
    case "OAUTH_JWT_CLAIM_COMPARISON_FAILED":
    case "OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED":
    case "OAUTH_KEY_SELECTION_FAILED":
    case "OAUTH_INVALID_RESPONSE":
    case "OAUTH_PARSE_ERROR":
      return new SsoRefusal("sso_token", cause?.claim ? `claim '${cause.claim}'` : undefined);
    default:
      // A network failure, or an answer the library could not read: the provider, not the person.
      return new SsoRefusal("sso_unavailable", (error as Error).message);
  }
}
