// A project's settings page (`/projects/<name>/settings`, linked from the project page): its alert
// rules and alert history, and the organization's destinations and delivery status (shared by all
// projects, shown where rules are written since a rule names destinations). Loaded on demand (app.tsx).

import { api } from "../api.ts";
import { alertKeys } from "../components/alerts/action.ts";
import { AlertDestinations } from "../components/alerts/destinations.tsx";
import { AlertHistory, DeliveryOutbox } from "../components/alerts/history.tsx";
import { AlertRules } from "../components/alerts/rules.tsx";
import "../components/alerts/alerts.css";
import { PageTitle, ProjectCrumb } from "../components/common.tsx";
import { useServerState } from "../hooks.ts";

export function ProjectSettingsPage({ projectName }: { projectName: string }) {
  const destinations = useServerState(alertKeys.destinations, () => api.alertDestinations());
  return (
    <section class="settings-page" data-testid="project-settings">
      <ProjectCrumb projectName={projectName} />
      <PageTitle title={`${projectName} · settings`} />
      <AlertRules projectName={projectName} destinations={destinations.data?.destinations ?? []} />
      <section class="settings-section" aria-labelledby="alert-history-title" data-testid="project-alert-history">
        <h2 id="alert-history-title">Alert history</h2>
        <AlertHistory projectName={projectName} />
      </section>
      <AlertDestinations destinations={destinations} />
      <DeliveryOutbox />
    </section>
  );
}
