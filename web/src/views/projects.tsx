import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, TimeAgo } from "../components/common.tsx";
import { useServerState } from "../hooks.ts";
import { useState } from "preact/hooks";
import { Link, projectPath, trashPath } from "../router.tsx";

/** How often the list reloads: ingest moves a project's last activity (docs/api.md, "Last update and last activity"). */
const REFRESH_MS = 10_000;

export function ProjectsPage() {
  const projects = useServerState(["projects"], () => api.projects(), { every: REFRESH_MS });
  const list = [...(projects.data?.projects ?? [])].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  const [deleteFailure, setDeleteFailure] = useState<string>();
  // A project goes to the trash with all its runs, restorable there until its purge date.
  const deleteProject = async (name: string, runCount: number) => {
    if (!window.confirm(`Delete project ${name} and its ${runCount} runs? They move to the trash, restorable until they are purged.`))
      return;
    setDeleteFailure(undefined);
    try {
      await api.deleteProject(name);
      projects.reload();
    } catch (error) {
      setDeleteFailure((error as Error).message);
    }
  };
  return (
    <section>
      <PageTitle title="Projects">
        <nav class="actions" aria-label="Projects">
          <Link href={trashPath()}>Trash</Link>
        </nav>
      </PageTitle>
      <ErrorNote error={deleteFailure ?? projects.error} />
      {projects.loading && !projects.data && <Loading what="projects" />}
      {projects.data && list.length === 0 && <p class="muted">No projects yet: create a run and its project appears here.</p>}
      {list.length > 0 && (
        <table class="data-table" data-testid="projects-table">
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col" class="number">
                Runs
              </th>
              <th scope="col">Last activity</th>
              <th scope="col">Created</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {list.map((project) => (
              <tr key={project.id}>
                <td>
                  <Link href={projectPath(project.name)}>{project.name}</Link>
                </td>
                <td class="number">{project.runCount.toLocaleString("en-US")}</td>
                <td data-testid="last-activity">
                  <TimeAgo iso={project.updatedAt} />
                </td>
                <td>
                  <TimeAgo iso={project.createdAt} />
                </td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete project ${project.name}`}
                    onClick={() => deleteProject(project.name, project.runCount)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
