import { useEffect, useState } from "preact/hooks";
import { safeReturnTo, SSO_REFUSALS } from "../../../src/domain/shared-with-ui.ts";
import { api, ApiError, apiKey } from "../api.ts";
import { ErrorNote } from "../components/common.tsx";
import { useLocation } from "../router.tsx";

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

/** Sign-in with an API key; the key stays in this browser's localStorage until "Sign out". */
export function SignInPage({ rejection, onSignedIn }: { rejection?: string; onSignedIn: () => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string>();
  const [checking, setChecking] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setChecking(true);
    setError(undefined);
    try {
      await api.validate(key.trim());
      apiKey.set(key.trim());
      onSignedIn();
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? `This API key was rejected: ${failure.message}.`
          : (failure as Error).message,
      );
    } finally {
      setChecking(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Stepwise</h1>
      {rejection && (
        <p class="error" role="alert" data-testid="key-rejected">
          Your API key was rejected ({rejection}). Sign in with a valid key.
        </p>
      )}
      <SsoSignIn />
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
        kept in this browser only.
      </p>
    </main>
  );
}
