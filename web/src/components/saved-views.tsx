// The project page's "Views" control (docs/api.md, "Saved views"): saves what the page shows (the
// runs table's columns and query, the workspace's layout and hidden runs) under a name on the server,
// lists the project's views, renames and updates the one opened, deletes any, and opens one by its link (`?view=<id>`): opening writes the view's
// layout, hidden runs and columns into this browser's page state (workspace/stored.ts) and its query
// into the URL, then drops `view` from the URL, so the page is the user's own again.

import { useEffect, useState } from "preact/hooks";
import { api, ServerUnreachable } from "../api.ts";
import { queryClient, useServerState } from "../hooks.ts";
import { appliedQuery, captureView, parseViewState, type ViewQuery, viewIdOf, viewLink } from "../lib/saved-views.ts";
import { Link, navigate, projectPath, useLocation } from "../router.tsx";
import { ErrorNote, TimeAgo } from "./common.tsx";
import "./saved-views.css";
import { useColumns, useHiddenRuns, useLayout } from "./workspace/stored.ts";

const message = (failure: unknown) => (failure instanceof Error ? failure.message : String(failure));

export function SavedViews({ projectName, query }: { projectName: string; query: ViewQuery }) {
  const location = useLocation();
  const [layout, setLayout] = useLayout(projectName);
  const hiddenRuns = useHiddenRuns(projectName);
  const [columns, setColumns] = useColumns(projectName);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [current, setCurrent] = useState<{ id: number; name: string } | null>(null);
  const [newName, setNewName] = useState("");
  useEffect(() => setNewName(current?.name ?? ""), [current?.id, current?.name]);
  const [error, setError] = useState<string>();
  const views = useServerState(["savedViews", projectName], () => api.views(projectName), { enabled: open });
  const requested = viewIdOf(location.query);
  const path = projectPath(projectName);

  useEffect(() => {
    if (requested === null) return;
    let stale = false;
    api.view(requested).then(
      (view) => {
        if (stale) return;
        if (view.projectName !== projectName) {
          // A link of another project's view: open it on its own project's page.
          navigate(`${projectPath(view.projectName)}?view=${view.id}`, { replace: true });
          return;
        }
        const state = parseViewState(view.state);
        setLayout(state.layout);
        hiddenRuns.replace(state.hiddenRuns);
        setColumns(state.columns);
        setCurrent({ id: view.id, name: view.name });
        setError(undefined);
        const text = appliedQuery(state);
        navigate(`${path}${text ? `?${text}` : ""}`, { replace: true });
      },
      (failure: unknown) => {
        if (stale || failure instanceof ServerUnreachable) return;
        setError(`View ${requested} could not be opened: ${message(failure)}`);
        setOpen(true); // said where it is seen, with the project's views to choose from
      },
    );
    return () => {
      stale = true;
    };
  }, [requested, projectName]);

  const state = () => captureView(columns, layout, hiddenRuns.hidden, query);
  const act = async (work: () => Promise<void>) => {
    setError(undefined);
    try {
      await work();
      void queryClient.invalidateQueries({ queryKey: ["savedViews", projectName] }); // the list reloads
    } catch (failure) {
      setError(message(failure));
    }
  };
  const save = () =>
    act(async () => {
      const view = await api.createView(projectName, name, state());
      setCurrent({ id: view.id, name: view.name });
      setName("");
    });
  const update = (id: number) => act(async () => void (await api.updateView(id, { state: state() })));
  const rename = (id: number) =>
    act(async () => {
      const view = await api.updateView(id, { name: newName });
      setCurrent({ id: view.id, name: view.name });
    });
  const remove = (id: number) =>
    act(async () => {
      await api.deleteView(id);
      if (current?.id === id) setCurrent(null);
    });

  return (
    <details class="saved-views" data-testid="saved-views" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        Views
        {current && (
          <>
            : <span data-testid="current-view">{current.name}</span>
          </>
        )}
      </summary>
      <div class="saved-views-panel">
        <form
          class="saved-views-save"
          onSubmit={(event) => {
            event.preventDefault();
            if (name.trim() !== "") void save();
          }}
        >
          <label>
            Save this page as
            <input
              type="text"
              value={name}
              maxLength={200}
              placeholder="View name"
              data-testid="view-name"
              onInput={(event) => setName(event.currentTarget.value)}
            />
          </label>
          <button type="submit" disabled={name.trim() === ""} data-testid="save-view">
            Save view
          </button>
        </form>
        {current && (
          <div class="saved-views-current">
            <button type="button" onClick={() => update(current.id)} data-testid="update-view">
              Update “{current.name}” with this page
            </button>
            <form
              class="saved-views-rename"
              onSubmit={(event) => {
                event.preventDefault();
                void rename(current.id);
              }}
            >
              <input
                type="text"
                value={newName}
                maxLength={200}
                aria-label="New name of the view"
                data-testid="rename-view"
                onInput={(event) => setNewName(event.currentTarget.value)}
              />
              <button type="submit" disabled={newName.trim() === "" || newName.trim() === current.name}>
                Rename
              </button>
            </form>
            <label>
              Link to share
              <input
                type="text"
                readOnly
                value={viewLink(window.location.origin, path, current.id)}
                data-testid="view-link"
                onFocus={(event) => event.currentTarget.select()}
              />
            </label>
          </div>
        )}
        <ErrorNote error={error ?? views.error} />
        {views.data && views.data.views.length === 0 && <p class="muted">No saved views in this project yet.</p>}
        {views.data && views.data.views.length > 0 && (
          <ul class="saved-views-list" data-testid="view-list">
            {views.data.views.map((view) => (
              <li key={view.id} data-view-id={view.id}>
                <Link href={`${path}?view=${view.id}`} class="truncate" title={`Open ${view.name}`}>
                  {view.name}
                </Link>
                <span class="muted">
                  <TimeAgo iso={view.updatedAt} />
                </span>
                <button type="button" class="link" onClick={() => remove(view.id)} aria-label={`Delete view ${view.name}`}>
                  delete
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </details>
  );
}
