import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, TimeAgo } from "../components/common.tsx";
import { useServerState } from "../hooks.ts";
import { Link, projectPath } from "../router.tsx";

/** How often the list reloads: ingest moves a project's last activity (docs/api.md, "Last update and last activity"). */
const REFRESH_MS = 10_000;

export function ProjectsPage() {
  const projects = useServerState(["projects"], () => api.projects(), { every: REFRESH_MS });
  const list = [...(projects.data?.projects ?? [])].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return (
    <section>
      <PageTitle title="Projects" />
      <ErrorNote error={projects.error} />
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
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
