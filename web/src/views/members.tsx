// The organization's members (docs/api.md, "Members"): everyone sees them; admins invite people
// (the invitation link is shown once), change roles and remove members.

import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, TimeAgo } from "../components/common.tsx";
import { useAction, useServerState } from "../hooks.ts";
import type { Invited, Member, Role } from "../types.ts";

const ROLES: Role[] = ["viewer", "member", "admin", "owner"];
const RANK = new Map(ROLES.map((role, rank) => [role, rank]));
const atLeast = (have: Role | undefined, need: Role) => have !== undefined && RANK.get(have)! >= RANK.get(need)!;

export function MembersPage() {
  const me = useServerState(["session"], () => api.session());
  const members = useServerState(["members"], () => api.members());
  const [failure, setFailure] = useState<string>();
  const myRole = me.data?.role;
  const admin = atLeast(myRole, "admin");
  // Only an owner grants or takes away owner (the server says so too).
  const rolesFor = (member: Member) => (myRole === "owner" ? ROLES : member.role === "owner" ? [] : ROLES.filter((r) => r !== "owner"));

  const act = async (work: () => Promise<unknown>) => {
    setFailure(undefined);
    try {
      await work();
      members.reload();
    } catch (error) {
      setFailure((error as Error).message);
    }
  };
  const remove = (member: Member) => {
    if (!window.confirm(`Remove ${member.user.email ?? member.user.name} from the organization? Their keys here stop working at once.`))
      return;
    void act(() => api.removeMember(member.user.id));
  };

  return (
    <section data-testid="members">
      <PageTitle title={`Members${me.data ? ` · ${me.data.organization.slug}` : ""}`} />
      {admin && <InviteForm onInvited={members.reload} canGrantOwner={myRole === "owner"} />}
      <ErrorNote error={members.error ?? failure} />
      {members.loading && !members.data && <Loading what="the members" />}
      {members.data && (
        <table class="data-table" data-testid="members-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {admin && <th scope="col" />}
            </tr>
          </thead>
          <tbody>
            {members.data.members.map((member) => (
              <tr key={member.user.id} data-user-id={member.user.id}>
                <td>
                  {member.user.name}
                  {member.user.kind === "service" && <span class="muted"> (service account)</span>}
                </td>
                <td>{member.user.email ?? "—"}</td>
                <td>
                  {admin && rolesFor(member).length > 0 ? (
                    <select
                      aria-label={`Role of ${member.user.email ?? member.user.name}`}
                      value={member.role}
                      onChange={(e) => void act(() => api.setRole(member.user.id, e.currentTarget.value as Role))}
                    >
                      {rolesFor(member).map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  ) : (
                    member.role
                  )}
                </td>
                <td>
                  <TimeAgo iso={member.joinedAt} />
                </td>
                {admin && (
                  <td>
                    {(myRole === "owner" || member.role !== "owner") && (
                      <button type="button" class="danger" onClick={() => remove(member)}>
                        Remove
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function InviteForm({ onInvited, canGrantOwner }: { onInvited: () => void; canGrantOwner: boolean }) {
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [invited, setInvited] = useState<Invited>();
  const { run, error } = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    setInvited(undefined);
    void run(async () => {
      setInvited(await api.invite({ email: email.trim(), role, ...(name.trim() ? { name: name.trim() } : {}) }));
      setEmail("");
      setName("");
      onInvited();
    });
  };

  return (
    <form class="invite" onSubmit={submit} data-testid="invite-form">
      <label>
        Email <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} required />
      </label>
      <label>
        Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="optional" />
      </label>
      <label>
        Role{" "}
        <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {ROLES.filter((r) => canGrantOwner || r !== "owner").map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={email.trim() === ""}>
        Invite
      </button>
      <ErrorNote error={error} />
      {invited?.invitationUrl && (
        <p data-testid="invitation-link">
          Send this link to {invited.member.user.email}; it works once, until{" "}
          {new Date(invited.expiresAt ?? "").toLocaleDateString("en-CA")}, and is shown only now:{" "}
          <input
            readOnly
            class="mono"
            value={invited.invitationUrl}
            aria-label="Invitation link"
            onFocus={(e) => e.currentTarget.select()}
          />
        </p>
      )}
      {invited && invited.invitationUrl === null && (
        <p data-testid="invitation-link">
          {invited.member.user.email} is a member now, with the role {invited.member.role}. They already sign in to Stepwise (or belong to
          another organization), so no link is needed: they sign in as they do and choose this organization.
        </p>
      )}
    </form>
  );
}
