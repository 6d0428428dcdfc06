// The shell: sign-in gate, top bar, and which view a path shows.

import { useEffect, useState } from "preact/hooks";
import { api, apiKey, browserSession, onKeyRejected } from "./api.ts";
import { ConnectionNotice } from "./components/common.tsx";
import { lazy } from "./components/lazy.tsx";
import { parseMlflowLink } from "./lib/mlflow-links.ts";
import { auditPath, keysPath, Link, modelsPath, navigate, trashPath, useLocation } from "./router.tsx";
import { ComparePage } from "./views/compare.tsx";
import { KeysPage } from "./views/keys.tsx";
import { LeaderboardPage } from "./views/leaderboard.tsx";
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

export function App() {
  const location = useLocation();
  // Undefined while a browser without a key asks whether its cookie holds a session (single sign-on).
  const [signedIn, setSignedIn] = useState<boolean | undefined>(apiKey.get() !== null ? true : undefined);
  const [rejection, setRejection] = useState<string>();

  useEffect(() => {
    if (signedIn !== undefined) return;
    api.session().then(
      (session) => {
        browserSession.csrfToken = session.csrfToken;
        setSignedIn(true);
      },
      () => setSignedIn(false),
    );
  }, []);

  useEffect(
    () =>
      onKeyRejected((message) => {
        apiKey.clear();
        browserSession.csrfToken = null;
        setRejection(message);
        setSignedIn(false);
      }),
    [],
  );

  if (signedIn === undefined) return null;

  if (!signedIn || location.path === "/signin") {
    return (
      <SignInPage
        rejection={rejection}
        onSignedIn={() => {
          setRejection(undefined);
          setSignedIn(true);
          const opensLink = parseMlflowLink(location.hash) !== undefined;
          if ((location.path === "/signin" || location.path === "/") && !opensLink) navigate("/projects", { replace: true });
        }}
      />
    );
  }

  const signOut = async () => {
    if (apiKey.get() === null) {
      // A session: ended on the server (before the sign-in page shows), not only forgotten here.
      await api.signOutSession().catch(() => undefined);
      browserSession.csrfToken = null;
    }
    apiKey.clear();
    setSignedIn(false);
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
