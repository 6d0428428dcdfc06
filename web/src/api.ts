// The UI's only door to the server: the public HTTP API with the API key kept in this browser.

import type * as T from "./types.ts";

const KEY_STORAGE = "stepwise.apiKey";

export const apiKey = {
  get: (): string | null => localStorage.getItem(KEY_STORAGE),
  set: (key: string) => localStorage.setItem(KEY_STORAGE, key),
  clear: () => localStorage.removeItem(KEY_STORAGE),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Listeners told when the server rejects the key (the app then shows the sign-in page). */
const rejectionListeners = new Set<(message: string) => void>();
export function onKeyRejected(listener: (message: string) => void): () => void {
  rejectionListeners.add(listener);
  return () => rejectionListeners.delete(listener);
}

type Query = Record<string, string | number | boolean | undefined | null>;

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** One API call with the stored key (or `candidateKey`, which is checked without raising a rejection). */
async function request<R>(method: string, path: string, body?: unknown, candidateKey?: string): Promise<R> {
  const key = candidateKey ?? apiKey.get();
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const payload = await response.json().catch(() => ({ error: `${response.status} ${response.statusText}` }));
  if (!response.ok) {
    const message = typeof payload?.error === "string" ? payload.error : `${response.status} ${response.statusText}`;
    if (response.status === 401 && candidateKey === undefined) for (const listener of rejectionListeners) listener(message);
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
  projects: () => get<{ projects: T.Project[] }>("/api/runs/projects"),
  listRuns: (query: T.RunListQuery) => get<T.RunList>("/api/runs/list", { ...query }),
  metricNames: (projectName: string, runIds?: number[], search?: string) =>
    get<{ metricNames: string[] }>("/api/runs/metric-names", { projectName, runIds: runIds?.join(","), search, limit: 500 }),
  run: (runId: number) => get<T.RunDetails>(`/api/runs/details/${runId}`),
  statistics: (ref: RunRef) => get<T.Statistics>("/api/runs/statistics", { ...ref }),
  metrics: (ref: RunRef, logName: string, window: { stepMin?: number; stepMax?: number; limit?: number } = {}) =>
    get<{ metrics: T.MetricPoint[] }>("/api/runs/metrics", { ...ref, logName, ...window }),
  logs: (ref: RunRef, query: { logType?: string; limit: number; offset: number }) =>
    get<{ logs: T.LogLine[]; total: number }>("/api/runs/logs", { ...ref, ...query }),
  files: (ref: RunRef) => get<{ files: T.FileRecord[] }>("/api/runs/files", { ...ref }),
  statusHistory: (runId: number) => get<{ events: T.StatusEvent[] }>("/api/runs/status/history", { runId }),
  modelGraph: (runId: number) => get<{ graph: T.ModelGraph | null }>("/api/runs/modelGraph", { runId }),
  compare: (projectName: string, runIds: number[], logName: string) =>
    get<T.Comparison>("/api/runs/compare", { projectName, runIds: runIds.join(","), logName }),
  leaderboard: (query: { projectName: string; logName: string; aggregation: string; direction: string; limit: number; offset: number }) =>
    get<T.Leaderboard>("/api/runs/leaderboard", query),
  updateTags: (runId: number, tags: string[]) => post<{ success: boolean }>("/api/runs/tags/update", { runId, tags }),
  updateNotes: (runId: number, notes: string | null) => post<{ success: boolean }>("/api/runs/notes/update", { runId, notes }),
};
