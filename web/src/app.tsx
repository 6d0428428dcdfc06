// The shell: sign-in gate, top bar, and which view a path shows.

import { useEffect, useState } from "preact/hooks";
import { api, apiKey, onKeyRejected, session } from "./api.ts";
import { ConnectionNotice } from "./components/common.tsx";
import { queryClient } from "./hooks.ts";
import { lazy } from "./components/lazy.tsx";
import { parseMlflowLink } from "./lib/mlflow-links.ts";
import { auditPath, keysPath, Link, membersPath, modelsPath, navigate, trashPath, useLocation } from "./router.tsx";
import { ComparePage } from "./views/compare.tsx";
import { InvitePage } from "./views/invite.tsx";
import { KeysPage } from "./views/keys.tsx";
import { LeaderboardPage } from "./views/leaderboard.tsx";
import { MembersPage } from "./views/members.tsx";
import { MlflowLinkPage } from "./views/mlflow-link.tsx";
import { ModelPage, ModelsPage } from "./views/models.tsx";
import { ProjectsPage } from "./views/projects.tsx";
import { RunPage } from "./views/run.tsx";
import { RunsPage } from "./views/runs.tsx";
import { SignInPage } from "./views/sign-in.tsx";
import { TrashPage } from "./views/trash.tsx";

const AuditPage = lazy("the audit log", () => import("./views/audit.tsx").then((module) => module.AuditPage));
const ProjectSettingsPage = lazy("the settings", () => import("./views/project-settings.tsx").then((module) => module.ProjectSettingsPage));

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function View({ path, query, hash }: { path: string; query: URLSearchParams; hash: string }) {
  // A link MLflow's client printed (`/#/experiments/<id>/runs/<run id>`) opens the page it names.
  const link = parseMlflowLink(hash);
  if (link) return <MlflowLinkPage key={hash} link={link} />;
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "models" && parts.length <= 2)
    return parts[1] === undefined ? <ModelsPage /> : <ModelPage key={parts[1]} name={parts[1]} />;
  if (parts.length === 0) return <Redirect to="/projects" />;
  if (parts[0] === "members" && parts.length === 1) return <MembersPage />;
  if (parts[0] === "audit" && parts.length === 1) return <AuditPage query={query} />;
  if (parts[0] === "keys" && parts.length === 1) return <KeysPage />;
  if (parts[0] === "trash" && parts.length === 1) {
    const projectName = query.get("projectName") ?? undefined;
    return <TrashPage key={projectName} projectName={projectName} />;
  }
  if (parts[0] !== "projects") return <NotFound path={path} />;
  const [, projectName, section, runId] = parts;
  if (projectName === undefined) return <ProjectsPage />;
  if (section === undefined || (section === "runs" && runId === undefined)) return <RunsPage projectName={projectName} />;
  if (section === "runs" && runId !== undefined && /^\d+$/.test(runId))
    return <RunPage key={runId} projectName={projectName} runId={Number(runId)} />;
  if (section === "compare") {
    const runIds = (query.get("runIds") ?? "")
      .split(",")
      .filter((id) => /^\d+$/.test(id))
      .map(Number);
    return <ComparePage projectName={projectName} runIds={runIds} />;
  }
  if (section === "leaderboard") return <LeaderboardPage projectName={projectName} />;
  if (section === "settings" && runId === undefined) return <ProjectSettingsPage projectName={projectName} />;
  return <NotFound path={path} />;
}

/** A path the UI has no page for (the server answers it with a 404 status too). */
function NotFound({ path }: { path: string }) {
  return (
    <section data-testid="not-found">
      <h1>Page not found</h1>
      <p class="error" role="alert">
        No page at <span class="mono">{path}</span>. <Link href="/projects">Go to projects</Link>
      </p>
    </section>
  );
}

/**
 * Signed in by the API key this browser keeps (single-user installs), else by the session cookie:
 * the page asks GET /api/auth/session once on load ("checking" until it answers).
 */
type SignInState = "checking" | "signed-in" | "signed-out";

export function App() {
  const location = useLocation();
  const [state, setState] = useState<SignInState>(apiKey.get() !== null ? "signed-in" : "checking");
  const [rejection, setRejection] = useState<{ message: string; byKey: boolean }>();

  useEffect(() => {
    if (state !== "checking") return;
    api.session().then(
      (current) => {
        session.set(current.csrfToken);
        setState("signed-in");
      },
      () => setState("signed-out"),
    );
  }, [state]);

  useEffect(
    () =>
      onKeyRejected((message) => {
        const byKey = apiKey.get() !== null;
        apiKey.clear();
        session.set(null);
        setRejection({ message, byKey });
        queryClient.clear();
        setState("signed-out");
      }),
    [],
  );

  const signedIn = () => {
    setRejection(undefined);
    setState("signed-in");
    const opensLink = parseMlflowLink(location.hash) !== undefined;
    if ((location.path === "/signin" || location.path === "/" || location.path.startsWith("/invite/")) && !opensLink)
      navigate("/projects", { replace: true });
  };

  const invitation = /^\/invite\/([^/]+)$/.exec(location.path);
  if (invitation) return <InvitePage key={invitation[1]} token={decodeURIComponent(invitation[1]!)} onSignedIn={signedIn} />;
  if (state === "checking") return null;
  if (state === "signed-out" || location.path === "/signin") return <SignInPage rejection={rejection} onSignedIn={signedIn} />;

  const signOut = async () => {
    const byKey = apiKey.get() !== null;
    apiKey.clear();
    if (!byKey) await api.signOut().catch(() => undefined);
    session.set(null);
    queryClient.clear();
    setState("signed-out");
  };
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <Link href="/projects" class="brand">
          Stepwise
        </Link>
        <nav aria-label="Main">
          <Link href="/projects">Projects</Link>
          <Link href={modelsPath}>Models</Link>
          <Link href={membersPath}>Members</Link>
          <Link href={trashPath()}>Trash</Link>
          <Link href={auditPath}>Audit log</Link>
          <Link href={keysPath}>API keys</Link>
        </nav>
        <button type="button" class="link" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <ConnectionNotice />
      <main id="main">
        <View path={location.path} query={location.query} hash={location.hash} />
      </main>
    </>
  );
}
