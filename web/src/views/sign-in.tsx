import { useState } from "preact/hooks";
import { api, ApiError, apiKey } from "../api.ts";
import { ErrorNote } from "../components/common.tsx";

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
