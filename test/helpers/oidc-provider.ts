import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, type KoaContextWithOIDC } from "oidc-provider";
// The provider's own in-memory adapter (its default); Stepwise's client is looked up through it, so
// its redirect URI can be set once the test server's port is known.
// @ts-expect-error: a module of the package without type declarations
import MemoryAdapter from "oidc-provider/lib/adapters/memory_adapter.js";

/** A person the provider knows: signs in with `email` as the login (any password). */
export interface OidcTestUser {
  email: string;
  /** What the provider asserts as `email_verified`; true when the key is absent, left out when undefined. */
  emailVerified?: unknown;
  name?: string;
}

export interface OidcProviderOptions {
  /** Lifetime of ID tokens in seconds (oidc-provider's ttl.IdToken); 3600 by default. */
  idTokenTtlSeconds?: number;
  /**
   * Put the email claims in the ID token too (as Google and Keycloak do); by default they are only
   * at the userinfo endpoint, as the specification has it for a code flow (conformIdTokenClaims).
   */
  emailInIdToken?: boolean;
}

/**
 * A real OpenID Connect provider for tests: `oidc-provider` (OpenID Certified) on a local port, with
 * one confidential client for Stepwise (PKCE required), signing keys of its own, and accounts from
 * `users`. People sign in through its development login page (any password), which a browser fills
 * in, or `signIn` drives over HTTP. Consent is given by the provider itself (a first-party client).
 */
export class TestOidcProvider {
  readonly clientId = "stepwise-test";
  readonly clientSecret = randomBytes(24).toString("base64url");
  readonly users = new Map<string, OidcTestUser>();
  /** When set, ID tokens are minted for this audience instead of the client (a token for another relying party). */
  audienceOverride: string | undefined;
  private redirectUris: string[] = [];

  private constructor(
    readonly issuer: string,
    readonly provider: Provider,
    private readonly server: Server,
    private readonly signingKey: KeyObject,
  ) {}

  static async start(options: OidcProviderOptions = {}): Promise<TestOidcProvider> {
    let handle: ((req: Parameters<Parameters<typeof createServer>[1] & object>[0], res: never) => void) | undefined;
    const server = createServer((req, res) => handle!(req, res as never));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const kid = randomBytes(8).toString("hex");
    const jwk = { ...(privateKey.export({ format: "jwk" }) as object), kid, use: "sig", alg: "RS256" };

    // Filled in below, once the fixture exists: the configuration's callbacks reach it.
    let fixture: TestOidcProvider | undefined;
    class Adapter extends MemoryAdapter {
      constructor(readonly model: string) {
        super(model);
      }
      async find(id: string) {
        if (this.model === "Client") return fixture?.clientMetadata(id);
        return super.find(id);
      }
    }

    const configuration: Configuration = {
      adapter: Adapter as never,
      jwks: { keys: [jwk as never] },
      cookies: { keys: [randomBytes(32).toString("hex")] },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      scopes: ["openid", "email", "profile"],
      pkce: { methods: ["S256"], required: () => true },
      ttl: {
        IdToken: options.idTokenTtlSeconds ?? 3600,
        AccessToken: 600,
        AuthorizationCode: 60,
        Interaction: 600,
        Session: 3600,
        Grant: 3600,
      },
      features: { devInteractions: { enabled: true } },
      conformIdTokenClaims: !options.emailInIdToken,
      async findAccount(_ctx, id) {
        const user = fixture?.users.get(id);
        if (!user) return undefined;
        return {
          accountId: id,
          async claims() {
            // emailVerified: undefined leaves the claim out.
            const emailVerified = "emailVerified" in user ? user.emailVerified : true;
            return { sub: id, email: user.email, email_verified: emailVerified as boolean, name: user.name ?? user.email };
          },
        };
      },
      // A first-party client: the person's consent is given (openid, email, profile) without asking.
      async loadExistingGrant(ctx: KoaContextWithOIDC) {
        const { client, session } = ctx.oidc;
        const grantId = ctx.oidc.result?.consent?.grantId ?? (client && session?.grantIdFor(client.clientId));
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        if (!client || !session?.accountId) return undefined;
        const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
        grant.addOIDCScope("openid email profile");
        await grant.save();
        return grant;
      },
      renderError(ctx, out) {
        ctx.type = "json";
        ctx.body = out;
      },
    };
    const provider = new Provider(issuer, configuration);
    fixture = new TestOidcProvider(issuer, provider, server, privateKey);
    fixture.mintForOtherAudiences();
    const callback = provider.callback();
    handle = (req, res) => callback(req, res);
    return fixture;
  }

  /** The redirect URIs of Stepwise's client (the test server's `<url>/api/auth/oidc/callback`). */
  setRedirectUris(uris: string[]): void {
    this.redirectUris = uris;
  }

  addUser(user: OidcTestUser): void {
    this.users.set(user.email, user);
  }

  private clientMetadata(id: string) {
    if (id !== this.clientId) return undefined;
    return {
      client_id: this.clientId,
      client_secret: this.clientSecret,
      redirect_uris: this.redirectUris,
      response_types: ["code"],
      grant_types: ["authorization_code"],
      token_endpoint_auth_method: "client_secret_basic",
    };
  }

  /**
   * With `audienceOverride` set, each ID token is signed again with the provider's own key after
   * its `aud` is replaced: a valid token of this issuer, minted for another client.
   */
  private mintForOtherAudiences(): void {
    const fixture = this;
    const IdToken = this.provider.IdToken as unknown as { prototype: { issue(options: { use: string }): Promise<string> } };
    const issue = IdToken.prototype.issue;
    IdToken.prototype.issue = async function (this: unknown, options: { use: string }) {
      const token = await issue.call(this, options);
      if (fixture.audienceOverride === undefined || options.use !== "idtoken") return token;
      const [header, payload] = token.split(".");
      const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
      claims.aud = fixture.audienceOverride;
      const body = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
      return `${body}.${sign("sha256", Buffer.from(body), fixture.signingKey).toString("base64url")}`;
    };
  }

  /**
   * Signs `login` in non-interactively, as a browser would: follows `authorizationUrl` through the
   * provider's login page (posting the login form) to the redirect back to the client, and returns
   * that URL (the callback with `code`, `state` and `iss`). Refuses anything else the provider answers.
   */
  async signIn(authorizationUrl: string, login: string): Promise<string> {
    const jar = new Map<string, string>();
    const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    let url = authorizationUrl;
    let form: URLSearchParams | undefined;
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(url, {
        method: form ? "POST" : "GET",
        redirect: "manual",
        headers: { cookie: cookieHeader(), ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
        body: form?.toString(),
      });
      for (const setCookie of response.headers.getSetCookie()) {
        const [pair] = setCookie.split(";");
        const eq = pair!.indexOf("=");
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      form = undefined;
      const location = response.headers.get("location");
      if (location) {
        const next = new URL(location, url).href;
        if (!next.startsWith(this.issuer)) return next;
        url = next;
        continue;
      }
      const html = await response.text();
      if (response.status === 200 && html.includes('name="prompt" value="login"')) {
        const action = /action="([^"]+)"/.exec(html)?.[1];
        if (!action) throw new Error("the provider's login page has no form action");
        url = new URL(action.replaceAll("&amp;", "&"), url).href;
        form = new URLSearchParams({ prompt: "login", login, password: "any" });
        continue;
      }
      throw new Error(`the provider answered ${response.status} at ${url}: ${html.slice(0, 500)}`);
    }
    throw new Error("too many redirects at the provider");
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
