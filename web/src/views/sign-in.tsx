import { useEffect, useState } from "preact/hooks";
import { safeReturnTo, SSO_REFUSALS } from "../../../src/domain/shared-with-ui.ts";
import { api, ApiError, apiKey, session } from "../api.ts";
import { ErrorNote } from "../components/common.tsx";
import { useAction } from "../hooks.ts";
import { useLocation } from "../router.tsx";
import type { AuthConfig } from "../types.ts";

// Looked up with a code from the URL: a Map, never the object itself.
const SSO_MESSAGES = new Map<string, string>(Object.entries(SSO_REFUSALS).map(([code, { message }]) => [code, message]));

/**
 * "Sign in with SSO" when the server has single sign-on on (GET /api/auth/config): a link (a full
 * navigation) to the server's start route, which returns here, to the page that asked, once signed
 * in; a refused sign-in comes back to /signin?error=<code>, said here.
 */
function SsoSignIn() {
  const location = useLocation();
  const [on, setOn] = useState(false);
  useEffect(() => {
    api.authConfig().then(
      (config) => setOn(config.oidc),
      () => setOn(false),
    );
  }, []);
  const code = location.path === "/signin" ? location.query.get("error") : null;
  const returnTo =
    location.path === "/signin" ? "/projects" : safeReturnTo(`${location.path}${location.query.size ? `?${location.query}` : ""}`);
  return (
    <>
      {code && (
        <p class="error" role="alert" data-testid="sso-refused">
          Single sign-on failed: {SSO_MESSAGES.get(code) ?? "the sign-in was refused"}.
        </p>
      )}
      {on && (
        <p>
          <a class="button" href={`/api/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`} data-testid="sso-sign-in">
            Sign in with SSO
          </a>
        </p>
      )}
    </>
  );
}

/**
 * Sign-in: single sign-on when on, email and password (a session cookie the page never reads, and its CSRF token kept in
 * memory), and, on a single-user install where nobody has a password yet, an API key kept in this
 * browser's localStorage until "Sign out" (GET /api/auth/config says which).
 */
export function SignInPage({ rejection, onSignedIn }: { rejection?: { message: string; byKey: boolean }; onSignedIn: () => void }) {
  const [config, setConfig] = useState<AuthConfig>();
  useEffect(() => {
    api.authConfig().then(setConfig, () => setConfig({ password: true, oidc: false, apiKey: true }));
  }, []);

  return (
    <main id="main" class="sign-in">
      <h1>Stepwise</h1>
      {rejection && (
        <p class="error" role="alert" data-testid="key-rejected">
          {rejection.byKey ? `Your API key was rejected (${rejection.message}).` : `You were signed out (${rejection.message}).`} Sign in
          again.
        </p>
      )}
      <SsoSignIn />
      {config?.apiKey ? (
        <>
          <ApiKeyForm onSignedIn={onSignedIn} />
          <details class="sign-in-other">
            <summary>Email and password</summary>
            <PasswordForm onSignedIn={onSignedIn} />
          </details>
        </>
      ) : (
        config && <PasswordForm onSignedIn={onSignedIn} />
      )}
    </main>
  );
}

/** A session begun by a password (sign-in or an invitation): it replaces any API key kept in this browser. */
export function signedInWith(signedIn: { csrfToken: string }, onSignedIn: () => void): void {
  apiKey.clear();
  session.set(signedIn.csrfToken);
  onSignedIn();
}

function PasswordForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { run, error, busy: checking } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => signedInWith(await api.signIn(email.trim(), password), onSignedIn));
  };

  return (
    <form onSubmit={submit} data-testid="password-sign-in">
      <label for="email">Email</label>
      <input id="email" type="email" autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
      <label for="password">Password</label>
      <input
        id="password"
        type="password"
        autoComplete="current-password"
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
        required
      />
      <button type="submit" disabled={checking || email.trim() === "" || password === ""}>
        {checking ? "Checking…" : "Sign in"}
      </button>
      <ErrorNote error={error} />
      <p class="muted">New here? Open the invitation link an admin gave you to set your password.</p>
    </form>
  );
}

function ApiKeyForm({ onSignedIn }: { onSignedIn: () => void }) {
  const [key, setKey] = useState("");
  const { run, error, busy: checking } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      try {
        await api.validate(key.trim());
      } catch (failure) {
        throw failure instanceof ApiError && failure.status === 401 ? new Error(`This API key was rejected: ${failure.message}.`) : failure;
      }
      apiKey.set(key.trim());
      onSignedIn();
    });
  };

  return (
    <>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          placeholder="sw_…"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          required
        />
        <button type="submit" disabled={checking || key.trim() === ""}>
          {checking ? "Checking…" : "Sign in"}
        </button>
      </form>
      <ErrorNote error={error} />
      <p class="muted">
        The server prints the first key when it starts on an empty data directory; <code>stepwise keys create</code> makes more. The key is
        kept in this browser only. Once someone has a password (<code>stepwise users create</code>), people sign in with email and password.
      </p>
    </>
  );
}
