// My API keys: the signed-in person's own keys, made (the key shown this once), listed and revoked
// (docs/api.md, "API keys"). A key's role is at most the person's own; "viewer" makes a read-only key.

import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, TimeAgo } from "../components/common.tsx";
import { useAction, useServerState } from "../hooks.ts";
import type { ApiKeyItem, CreatedKey, NewKey } from "../types.ts";

const ROLES = ["viewer", "member", "admin", "owner"] as const;
const LIFETIMES = [
  ["never", "Never expires"],
  ["7d", "7 days"],
  ["30d", "30 days"],
  ["90d", "90 days"],
  ["365d", "1 year"],
] as const;

const date = (iso: string | null) => (iso === null ? "never" : new Date(iso).toLocaleDateString("en-CA"));

function keyState(key: ApiKeyItem): string {
  if (key.revokedAt !== null) return "revoked";
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now()) return "expired";
  return "active";
}

export function KeysPage() {
  const keys = useServerState(["keys"], () => api.keys());
  const [name, setName] = useState("");
  const [role, setRole] = useState<string>("");
  const [lifetime, setLifetime] = useState<string>("never");
  const [created, setCreated] = useState<CreatedKey>();
  const { run, error: failure, busy } = useAction();
  const act = (work: () => Promise<unknown>) => run(work, [["keys"]]);
  const create = (event: Event) => {
    event.preventDefault();
    const body: NewKey = { name: name.trim() };
    if (role !== "") body.role = role as NewKey["role"];
    if (lifetime !== "never") body.expiresIn = lifetime;
    void act(async () => {
      setCreated(await api.createKey(body));
      setName("");
    });
  };
  const revoke = (key: ApiKeyItem) => {
    if (!confirm(`Revoke the key '${key.name}'? Programs using it stop working at once.`)) return;
    void act(() => api.revokeKey(key.id));
  };

  return (
    <section data-testid="keys">
      <PageTitle title="My API keys" />
      <p class="muted">
        Keys let programs (the Python client, MLflow's client, scripts) act as you. A key's role is at most yours; a viewer key reads only.
      </p>
      <form class="key-form" onSubmit={create} data-testid="new-key-form">
        <label>
          Name <input required maxLength={200} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Role{" "}
          <select value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value)}>
            <option value="">My role</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label>
          Expires{" "}
          <select value={lifetime} onChange={(e) => setLifetime((e.target as HTMLSelectElement).value)}>
            {LIFETIMES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy || name.trim() === ""}>
          Create key
        </button>
      </form>
      {created && (
        <div class="notice" role="status" data-testid="created-key">
          <p>
            Your new key <strong>{created.apiKey.name}</strong>. Copy it now: it is shown only this once.
          </p>
          <input
            class="mono"
            readOnly
            value={created.key}
            data-testid="created-key-value"
            onFocus={(e) => (e.target as HTMLInputElement).select()}
          />
          <button type="button" class="link" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      <ErrorNote error={keys.error ?? failure} />
      {keys.loading && !keys.data && <Loading what="your keys" />}
      {keys.data && keys.data.keys.length === 0 && <p class="muted">You have no API keys yet.</p>}
      {keys.data && keys.data.keys.length > 0 && (
        <table class="data-table" data-testid="key-list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Role</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {keys.data.keys.map((key) => (
              <tr key={key.id} data-testid="key-row" data-key-id={key.id}>
                <td>{key.name}</td>
                <td class="mono">{key.displayPrefix}…</td>
                <td>{key.role ?? `${key.memberRole ?? "—"} (mine)`}</td>
                <td>
                  <TimeAgo iso={key.createdAt} />
                </td>
                <td>{date(key.expiresAt)}</td>
                <td data-testid="key-state">{keyState(key)}</td>
                <td>
                  {keyState(key) === "active" && (
                    <button type="button" disabled={busy} onClick={() => revoke(key)}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
