// The UI's only door to the server: the public HTTP API, signed in by the session cookie (with its
// CSRF token kept in memory) or, on single-user installs, by the API key kept in this browser.

import type * as T from "./types.ts";

const KEY_STORAGE = "stepwise.apiKey";

export const apiKey = {
  get: (): string | null => localStorage.getItem(KEY_STORAGE),
  set: (key: string) => localStorage.setItem(KEY_STORAGE, key),
  clear: () => localStorage.removeItem(KEY_STORAGE),
};

/**
 * The signed-in session's CSRF token (GET /api/auth/session, or the sign-in's answer): sent as
 * x-csrf-token on every write, which the server refuses without it when the cookie signs it in.
 * Memory only: a reload asks the session again.
 */
export const session = (() => {
  let csrfToken: string | null = null;
  return {
    get csrfToken() {
      return csrfToken;
    },
    set(token: string | null) {
      csrfToken = token;
    },
  };
})();

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Thrown when the server cannot be reached (a network failure, or a proxy's 502/503/504 while it
 * restarts): views keep what they show and retry (hooks.ts), and the shell shows "reconnecting…".
 */
export class ServerUnreachable extends ApiError {
  constructor(message: string) {
    super(0, message);
  }
}

const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/** Whether the server answered the last request; listeners hear each change (the shell's notice). */
export const connection = (() => {
  let reachable = true;
  const listeners = new Set<(reachable: boolean) => void>();
  const set = (next: boolean) => {
    if (next === reachable) return;
    reachable = next;
    for (const listener of listeners) listener(reachable);
  };
  return {
    get reachable() {
      return reachable;
    },
    set,
    subscribe(listener: (reachable: boolean) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
})();

/** Listeners told when the server rejects the key (the app then shows the sign-in page). */
const rejectionListeners = new Set<(message: string) => void>();
export function onKeyRejected(listener: (message: string) => void): () => void {
  rejectionListeners.add(listener);
  return () => rejectionListeners.delete(listener);
}

type Query = Record<string, string | number | boolean | string[] | undefined | null>;

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value))
      for (const item of value) params.append(name, item); // a list is the parameter repeated
    else if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * One API call with the stored key, else the session cookie (same-origin fetches send it) and its
 * CSRF token on writes. A `candidateKey` is checked without raising a rejection; `quiet` calls
 * (sign-in, the session check) answer their 401 to the caller alone.
 */
async function request<R>(method: string, path: string, body?: unknown, candidateKey?: string, quiet = false): Promise<R> {
  const key = candidateKey ?? apiKey.get();
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  else if (method !== "GET" && session.csrfToken) headers["x-csrf-token"] = session.csrfToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (failure) {
    connection.set(false);
    throw new ServerUnreachable((failure as Error).message);
  }
  if (UNREACHABLE_STATUSES.has(response.status)) {
    connection.set(false);
    throw new ServerUnreachable(`${response.status} ${response.statusText}`);
  }
  connection.set(true);
  const payload = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) {
    const message = typeof payload?.error === "string" ? payload.error : `${response.status} ${response.statusText}`;
    if (response.status === 401 && candidateKey === undefined && !quiet) for (const listener of rejectionListeners) listener(message);
    throw new ApiError(response.status, message);
  }
  return payload as R;
}

const get = <R>(path: string, query?: Query) => request<R>("GET", withQuery(path, query));
const post = <R>(path: string, body: unknown) => request<R>("POST", path, body);

export interface RunRef {
  projectName: string;
  runId: number;
}

export const api = {
  /** Checks a key before it is stored; the sign-in page shows its rejection itself. */
  validate: (key: string) => request<T.Validation>("GET", "/api/runs/auth/validate", undefined, key),
  /** Who is signed in (by the session cookie or the key); 401 when nobody (docs/api.md, "Sign-in and sessions"). */
  session: () => request<T.Session>("GET", "/api/auth/session", undefined, undefined, true),
  /** Which ways of signing in this server offers. */
  authConfig: () => request<T.AuthConfig>("GET", "/api/auth/config", undefined, undefined, true),
  signIn: (email: string, password: string) => request<T.SignedIn>("POST", "/api/auth/sign-in", { email, password }, undefined, true),
  signOut: () => request<T.Success>("POST", "/api/auth/sign-out", {}, undefined, true),
  invitation: (token: string) =>
    request<T.Invitation>("GET", `/api/auth/invitations/${encodeURIComponent(token)}`, undefined, undefined, true),
  acceptInvitation: (token: string, password: string, name?: string) =>
    request<T.SignedIn>(
      "POST",
      `/api/auth/invitations/${encodeURIComponent(token)}/accept`,
      { password, ...(name ? { name } : {}) },
      undefined,
      true,
    ),
  /** Members of the organization (docs/api.md, "Members"): admins invite, change roles and remove. */
  members: () => get<T.Members>("/api/members"),
  invite: (body: T.InviteBody) => post<T.Invited>("/api/members", body),
  setRole: (userId: string, role: T.Role) => post<T.MemberAnswer>(`/api/members/${encodeURIComponent(userId)}/role`, { role }),
  removeMember: (userId: string) => post<T.MemberAnswer>(`/api/members/${encodeURIComponent(userId)}/remove`, {}),
  projects: () => get<T.Projects>("/api/runs/projects"),
  listRuns: (query: T.RunListQuery) => get<T.RunList>("/api/runs/list", { ...query }),
  sweep: (query: T.SweepQuery) => get<T.Sweep>("/api/runs/sweep", { ...query }),
  metricNames: (projectName: string, runIds?: number[], search?: string) =>
    get<T.MetricNames>("/api/runs/metric-names", { projectName, runIds: runIds?.join(","), search, limit: 500 }),
  run: (runId: number) => get<T.RunDetails>(`/api/runs/details/${runId}`),
  /** The run an MLflow run ID names (the links MLflow's client prints). */
  runByMlflowId: (mlflowRunId: string) => get<T.RunDetails>(`/api/runs/details/by-mlflow-id/${encodeURIComponent(mlflowRunId)}`),
  /** The project an MLflow experiment ID names ("0": the organization's default experiment). */
  projectByMlflowId: (experimentId: string) => get<T.Project>(`/api/runs/projects/by-mlflow-id/${encodeURIComponent(experimentId)}`),
  statistics: (ref: RunRef) => get<T.Statistics>("/api/runs/statistics", { ...ref }),
  metrics: (ref: RunRef, logName: string, window: T.MetricWindow = {}) =>
    get<T.MetricPoints>("/api/runs/metrics", { ...ref, logName, ...window }),
  /** Several metrics' series in one request per page (the server pages by size: nextOffset is followed). */
  async metricsOf(ref: RunRef, logNames: string[], window: T.MetricWindow = {}): Promise<T.MetricPoint[]> {
    const points: T.MetricPoint[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page: T.MetricPoints = await get<T.MetricPoints>("/api/runs/metrics", { ...ref, logNames, ...window, offset });
      points.push(...page.metrics);
      offset = page.nextOffset;
    }
    return points;
  },
  /** Many runs × many metrics in one request, each series bucketed (first/last/min/max and non-finite points kept). */
  metricsBatch: (body: T.MetricsBatchBody) => post<T.MetricsBatch>("/api/runs/metrics/batch", body),
  logs: (ref: RunRef, query: T.LogsQuery) => get<T.Logs>("/api/runs/logs", { ...ref, ...query }),
  files: (ref: RunRef, logName?: string) => get<T.Files>("/api/runs/files", { ...ref, logName }),
  /** A run's data rows (histograms, tables, string series), by name then step; a page also ends by size (nextOffset). */
  data: (ref: RunRef, query: T.DataQuery) => get<T.DataRows>("/api/runs/data", { ...ref, ...query }),
  statusHistory: (runId: number) => get<T.StatusHistory>("/api/runs/status/history", { runId }),
  alerts: (runId: number) => get<T.Alerts>("/api/runs/alerts", { runId }),
  modelGraph: (runId: number) => get<T.ModelGraphAnswer>("/api/runs/modelGraph", { runId }),
  compare: (projectName: string, runIds: number[], logName: string) =>
    get<T.Comparison>("/api/runs/compare", { projectName, runIds: runIds.join(","), logName }),
  leaderboard: (query: T.LeaderboardQuery) => get<T.Leaderboard>("/api/runs/leaderboard", query),
  models: (query: T.ModelListQuery) => get<T.ModelList>("/api/runs/models", { ...query }),
  model: (name: string, page: { limit: number; offset: number }) => get<T.Model>(`/api/runs/models/${encodeURIComponent(name)}`, page),
  /** The MLflow 3 logged models a run made and the registered versions whose run it is. */
  modelsOfRun: (runId: number) => get<T.ModelsOfRun>(`/api/runs/models/of-run/${runId}`),
  updateTags: (runId: number, tags: string[]) => post<T.Success>("/api/runs/tags/update", { runId, tags }),
  updateNotes: (runId: number, notes: string | null) => post<T.Success>("/api/runs/notes/update", { runId, notes }),
  /** Saved views of a project's page (components/saved-views.tsx): their states are the UI's own JSON. */
  views: (projectName: string) => get<T.SavedViewList>("/api/runs/views", { projectName, limit: 200 }),
  view: (viewId: number) => get<T.SavedView>(`/api/runs/views/${viewId}`),
  createView: (projectName: string, name: string, state: object) => post<T.SavedView>("/api/runs/views", { projectName, name, state }),
  updateView: (viewId: number, change: { name?: string; state?: object }) =>
    request<T.SavedView>("PATCH", `/api/runs/views/${viewId}`, change),
  deleteView: (viewId: number) => request<T.Success>("DELETE", `/api/runs/views/${viewId}`),
  /** Deletion (docs/api.md, "Deletion and retention"): to the trash at once, restorable until the purge. */
  deleteRuns: (runIds: number[]) => post<T.DeletedRuns>("/api/runs/delete", { runIds }),
  restoreRuns: (runIds: number[]) => post<T.RestoredRuns>("/api/runs/restore", { runIds }),
  deleteProject: (projectName: string) => post<T.DeletedProject>("/api/runs/projects/delete", { projectName }),
  restoreProject: (projectName: string) => post<T.RestoredProject>("/api/runs/projects/restore", { projectName }),
  trash: (projectName?: string) => get<T.Trash>("/api/runs/trash", { projectName, limit: 1000 }),
  /** The organization's audit log, newest first (docs/api.md, "Audit log"; admins only). */
  audit: (query: T.AuditQuery) => get<T.AuditList>("/api/audit", { ...query }),
  /** Alerts (docs/api.md, "Alerts"): the organization's destinations and outbox, a project's rules and fired events. */
  alertDestinations: () => get<T.AlertDestinations>("/api/alerts/destinations"),
  createAlertDestination: (body: T.NewAlertDestination) => post<T.CreatedAlertDestination>("/api/alerts/destinations", body),
  deleteAlertDestination: (id: number) => request<T.Success>("DELETE", `/api/alerts/destinations/${id}`),
  testAlertDestination: (id: number) => post<T.AlertTestDelivery>(`/api/alerts/destinations/${id}/test`, {}),
  alertRules: (projectName: string) => get<T.AlertRules>("/api/alerts/rules", { projectName }),
  createAlertRule: (body: T.NewAlertRule) => post<{ rule: T.AlertRule }>("/api/alerts/rules", body),
  updateAlertRule: (ruleId: number, change: T.AlertRuleChange) =>
    request<{ rule: T.AlertRule }>("PATCH", `/api/alerts/rules/${ruleId}`, change),
  deleteAlertRule: (ruleId: number) => request<T.Success>("DELETE", `/api/alerts/rules/${ruleId}`),
  alertEvents: (query: { projectName: string; runId?: number; limit?: number; cursor?: string }) =>
    get<T.AlertEvents>("/api/alerts/events", query),
  alertDeliveries: (query: { status?: T.AlertDelivery["status"]; limit?: number; cursor?: string }) =>
    get<T.AlertOutbox>("/api/alerts/deliveries", query),
  retryAlertDelivery: (deliveryId: string) => post<T.Success>(`/api/alerts/deliveries/${encodeURIComponent(deliveryId)}/retry`, {}),
  /** The signed-in person's own API keys (docs/api.md, "API keys"): the key itself is answered once, when made. */
  keys: () => get<T.KeyList>("/api/keys"),
  createKey: (body: T.NewKey) => post<T.CreatedKey>("/api/keys", body),
  revokeKey: (keyId: string) => post<{ apiKey: T.ApiKeyItem }>(`/api/keys/${encodeURIComponent(keyId)}/revoke`, {}),
};
