// The page of an invitation link (/invite/<token>): sets the person's password and signs it in.

import { useEffect, useState } from "preact/hooks";
import { PASSWORD_MIN_LENGTH } from "../../../src/domain/shared-with-ui.ts";
import { api } from "../api.ts";
import { ErrorNote, Loading } from "../components/common.tsx";
import { useAction } from "../hooks.ts";
import { signedInWith } from "./sign-in.tsx";
import type { Invitation } from "../types.ts";

export function InvitePage({ token, onSignedIn }: { token: string; onSignedIn: () => void }) {
  const [invitation, setInvitation] = useState<Invitation>();
  const [loadError, setLoadError] = useState<string>();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const { run, error, busy: saving } = useAction();

  useEffect(() => {
    api.invitation(token).then(
      (found) => {
        setInvitation(found);
        setName(found.name);
      },
      (failure: Error) => setLoadError(failure.message),
    );
  }, [token]);

  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      if (password !== repeated) throw new Error("The two passwords differ.");
      signedInWith(await api.acceptInvitation(token, password, name.trim() || undefined), onSignedIn);
    });
  };

  return (
    <main id="main" class="sign-in" data-testid="invitation">
      <h1>Stepwise</h1>
      {loadError && (
        <p class="error" role="alert">
          {loadError}
        </p>
      )}
      {!invitation && !loadError && <Loading what="the invitation" />}
      {invitation && (
        <form onSubmit={submit}>
          <p>
            Welcome to <strong>{invitation.organization.slug}</strong>, {invitation.email}.{" "}
            {invitation.hasPassword ? "Choose a new password." : "Choose a password to sign in with."}
          </p>
          <label for="name">Your name</label>
          <input id="name" value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="name" maxLength={200} />
          <label for="new-password">Password (at least {PASSWORD_MIN_LENGTH} characters)</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            minLength={PASSWORD_MIN_LENGTH}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
            required
          />
          <label for="repeat-password">Password again</label>
          <input
            id="repeat-password"
            type="password"
            autoComplete="new-password"
            value={repeated}
            onInput={(e) => setRepeated(e.currentTarget.value)}
            required
          />
          <button type="submit" disabled={saving || password.length < PASSWORD_MIN_LENGTH}>
            {saving ? "Saving…" : "Set password"}
          </button>
          <ErrorNote error={error} />
        </form>
      )}
    </main>
  );
}
