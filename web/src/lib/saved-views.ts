// What a saved view of a project's page holds (docs/api.md, "Saved views"): the runs table's chosen
// columns, the workspace's layout and hidden runs, the table's query (search, tags, status, sort,
// filter) and a grouping. The server keeps the object as given; reading it back is defensive, as
// reading localStorage is (lib/workspace.ts): a part missing or malformed falls back to its default.

import { type Column, parseColumns } from "./run-columns.ts";
import { type Layout, parseHiddenRuns, parseLayout } from "./workspace.ts";

/** The table's query as the project page's URL carries it. */
export interface ViewQuery {
  search: string;
  tags: string;
  status: string;
  sort: string;
  filter: string;
  /** The sweep analysis's brushes (lib/sweep-axes.ts), as the URL has them. */
  brush: string;
}

export interface ViewState {
  version: 1;
  /** The chosen columns; null: the table's defaults. */
  columns: Column[] | null;
  layout: Layout;
  hiddenRuns: number[];
  query: ViewQuery;
  /** How runs are grouped (lib/grouping.ts), as the layout has it: written out so a reader of the API sees it. */
  grouping: Layout["grouping"];
}

const QUERY_FIELDS = ["search", "tags", "status", "sort", "filter", "brush"] as const;

/** The page's query parameter that opens a saved view. */
export const VIEW_PARAM = "view";

/** The state to save from what the page shows now. */
export function captureView(columns: Column[] | null, layout: Layout, hiddenRuns: Iterable<number>, query: ViewQuery): ViewState {
  return { version: 1, columns, layout, hiddenRuns: [...hiddenRuns], query: pickQuery(query), grouping: layout.grouping };
}

function pickQuery(source: Partial<Record<keyof ViewQuery, unknown>>): ViewQuery {
  const query: Record<(typeof QUERY_FIELDS)[number], string> = { search: "", tags: "", status: "", sort: "", filter: "", brush: "" };
  for (const field of QUERY_FIELDS) {
    // Own fields only: a state is the client's JSON, and `filter` must not come from a prototype.
    const value = Object.hasOwn(source, field) ? source[field] : undefined;
    if (typeof value === "string") query[field] = value;
  }
  return query;
}

/** A saved state as the page applies it; anything missing or malformed is its default. */
export function parseViewState(state: unknown): ViewState {
  const record = (typeof state === "object" && state !== null ? state : {}) as Partial<Record<keyof ViewState, unknown>>;
  // The grouping travels in the layout, where the page reads it.
  const layout = parseLayout(JSON.stringify(record.layout ?? null));
  return {
    version: 1,
    columns: parseColumns(record.columns),
    layout,
    hiddenRuns: parseHiddenRuns(JSON.stringify(record.hiddenRuns ?? [])),
    query: pickQuery((typeof record.query === "object" && record.query !== null ? record.query : {}) as Record<string, unknown>),
    grouping: layout.grouping,
  };
}

/**
 * The project page's query once a view is applied: the view's query, the first page, and no
 * `view` parameter (applied, the page is the user's again: a reload keeps their later changes).
 */
export function appliedQuery(state: ViewState): string {
  const params = new URLSearchParams();
  for (const field of QUERY_FIELDS) if (state.query[field] !== "") params.set(field, state.query[field]);
  return params.toString();
}

/** A view's link: its project's page with `?view=<id>`, absolute for copying. */
export function viewLink(origin: string, projectPath: string, viewId: number): string {
  return `${origin}${projectPath}?${VIEW_PARAM}=${viewId}`;
}

/** The view ID a page's query asks to open, or null (a malformed one too). */
export function viewIdOf(query: URLSearchParams): number | null {
  const text = query.get(VIEW_PARAM);
  if (text === null || !/^[1-9]\d{0,15}$/.test(text)) return null;
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
}
