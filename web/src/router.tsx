// History-API routing: every view has a deep link, and in-app links never reload the page.

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export interface Location {
  path: string;
  query: URLSearchParams;
  /** The URL's fragment with its `#` ("" when none): MLflow's client prints links in it (lib/mlflow-links.ts). */
  hash: string;
}

const listeners = new Set<() => void>();
const current = (): Location => ({
  path: window.location.pathname,
  query: new URLSearchParams(window.location.search),
  hash: window.location.hash,
});

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  // The hash counts: a link MLflow's client printed (`/#/experiments/...`) is replaced even by its own path.
  if (to === window.location.pathname + window.location.search + window.location.hash) return;
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const listener of listeners) listener();
}

/**
 * Changes some query parameters of the current location (empty values are removed). Each change is
 * a new history entry (paging, filters, sorting, tabs), so Back returns to the previous view;
 * `replace` is for changes that are not the user's own steps.
 */
export function setQuery(changes: Record<string, string | number | undefined | null>, options = { replace: false }): void {
  const query = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined || value === null || value === "") query.delete(name);
    else query.set(name, String(value));
  }
  const text = query.toString();
  navigate(window.location.pathname + (text ? `?${text}` : ""), options);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    window.addEventListener("popstate", update);
    window.addEventListener("hashchange", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
      window.removeEventListener("hashchange", update);
    };
  }, []);
  return location;
}

/** An in-app link: a real <a href> (open in new tab works), navigated without a reload on plain clicks. */
export function Link({
  href,
  children,
  class: className,
  title,
}: {
  href: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
}) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} class={className} title={title}>
      {children}
    </a>
  );
}

export const projectPath = (projectName: string) => `/projects/${encodeURIComponent(projectName)}`;
export const runPath = (projectName: string, runId: number) => `${projectPath(projectName)}/runs/${runId}`;
export const comparePath = (projectName: string, runIds: number[]) => `${projectPath(projectName)}/compare?runIds=${runIds.join(",")}`;
export const leaderboardPath = (projectName: string) => `${projectPath(projectName)}/leaderboard`;
export const settingsPath = (projectName: string) => `${projectPath(projectName)}/settings`;
export const modelsPath = "/models";
export const membersPath = "/members";
export const auditPath = "/audit";
/** The signed-in person's own API keys. */
export const keysPath = "/keys";
export const trashPath = (projectName?: string) =>
  projectName === undefined ? "/trash" : `/trash?projectName=${encodeURIComponent(projectName)}`;
export const modelPath = (name: string) => `${modelsPath}/${encodeURIComponent(name)}`;
