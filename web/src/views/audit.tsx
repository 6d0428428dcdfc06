// The organization's audit log (docs/api.md, "Audit log"): who did what, to what, when and from
// where, newest first, filtered by action, actor and time range, "Load more" for older entries.
// Admins only: anyone else sees the server's refusal.

import { useEffect, useState } from "preact/hooks";
import { AUDIT_ACTIONS } from "../../../src/domain/shared-with-ui.ts";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, TimeAgo } from "../components/common.tsx";
import { useServerState } from "../hooks.ts";
import { setQuery } from "../router.tsx";
import type { AuditEntry, AuditQuery } from "../types.ts";

const PAGE_SIZE = 50;

/** Every prefix of several actions (`key.`, `alert_rule.`), offered before the actions themselves. */
const PREFIXES = [...new Set(AUDIT_ACTIONS.filter((action) => action.includes(".")).map((action) => `${action.split(".")[0]}.`))];

/** A `datetime-local` input's value (local time, to the minute) of an ISO time, and back. */
const localInput = (iso: string | undefined) => {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
};
const isoOf = (local: string) => (local === "" ? undefined : new Date(local).toISOString());

interface Filters {
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
}

export function AuditPage({ query }: { query: URLSearchParams }) {
  const filters: Filters = {
    action: query.get("action") ?? undefined,
    actor: query.get("actor") ?? undefined,
    since: query.get("since") ?? undefined,
    until: query.get("until") ?? undefined,
  };
  const filterKey = JSON.stringify(filters);
  // The page tokens of the pages shown after the first: "Load more" adds one; new filters start over.
  const [more, setMore] = useState<{ filterKey: string; tokens: string[] }>({ filterKey, tokens: [] });
  const shownMore = more.filterKey === filterKey ? more.tokens : [];
  // New filters start from their first page, also when they are filters shown before.
  useEffect(() => {
    if (more.filterKey !== filterKey) setMore({ filterKey, tokens: [] });
  }, [filterKey]);
  const tokens: (string | undefined)[] = [undefined, ...shownMore];
  return (
    <section data-testid="audit">
      <PageTitle title="Audit log" />
      <p class="muted">
        Sign-ins, keys, members and roles, deletions and settings changes of this organization, newest first. Entries are never changed or
        removed.
      </p>
      <AuditFilters key={filterKey} filters={filters} />
      <table class="data-table" data-testid="audit-entries">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Source address</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        {tokens.map((token, index) => (
          <AuditRows
            key={`${filterKey} ${token ?? ""}`}
            filters={filters}
            pageToken={token}
            first={index === 0}
            onMore={index === tokens.length - 1 ? (next) => setMore({ filterKey, tokens: [...shownMore, next] }) : undefined}
          />
        ))}
      </table>
    </section>
  );
}

function AuditFilters({ filters }: { filters: Filters }) {
  const [action, setAction] = useState(filters.action ?? "");
  const [actor, setActor] = useState(filters.actor ?? "");
  const [since, setSince] = useState(localInput(filters.since));
  const [until, setUntil] = useState(localInput(filters.until));
  return (
    <form
      class="toolbar"
      role="search"
      aria-label="Audit log filters"
      onSubmit={(event) => {
        event.preventDefault();
        setQuery({ action, actor: actor.trim(), since: isoOf(since), until: isoOf(until) });
      }}
    >
      <label>
        Action{" "}
        <select data-testid="audit-action" value={action} onChange={(event) => setAction(event.currentTarget.value)}>
          <option value="">All actions</option>
          {PREFIXES.map((prefix) => (
            <option key={prefix} value={prefix}>
              {prefix}* (all)
            </option>
          ))}
          {AUDIT_ACTIONS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Actor{" "}
        <input
          data-testid="audit-actor"
          type="search"
          placeholder="email, user ID, cli, system"
          value={actor}
          onInput={(event) => setActor(event.currentTarget.value)}
        />
      </label>
      <label>
        From{" "}
        <input data-testid="audit-since" type="datetime-local" value={since} onInput={(event) => setSince(event.currentTarget.value)} />
      </label>
      <label>
        Before{" "}
        <input data-testid="audit-until" type="datetime-local" value={until} onInput={(event) => setUntil(event.currentTarget.value)} />
      </label>
      <button type="submit">Apply</button>
      <button
        type="button"
        class="link"
        onClick={() => setQuery({ action: undefined, actor: undefined, since: undefined, until: undefined })}
      >
        Clear
      </button>
    </form>
  );
}

/** One page of entries as a <tbody>; the last page offers the next. */
function AuditRows(props: { filters: Filters; pageToken: string | undefined; first: boolean; onMore?: (pageToken: string) => void }) {
  const { filters, pageToken, first, onMore } = props;
  const query: AuditQuery = { ...filters, limit: PAGE_SIZE, ...(pageToken ? { pageToken } : {}) };
  const page = useServerState(["audit", filters, pageToken], () => api.audit(query));
  const data = page.data;
  return (
    <tbody>
      {(page.error || (page.loading && !data)) && (
        <tr>
          <td colSpan={6}>
            <ErrorNote error={page.error} />
            {page.loading && !data && <Loading what="the audit log" />}
          </td>
        </tr>
      )}
      {data && first && data.entries.length === 0 && (
        <tr>
          <td colSpan={6} class="muted">
            No entries{filters.action || filters.actor || filters.since || filters.until ? " match these filters" : " yet"}.
          </td>
        </tr>
      )}
      {data?.entries.map((entry) => (
        <AuditRow key={entry.id} entry={entry} />
      ))}
      {data?.nextPageToken && onMore && (
        <tr>
          <td colSpan={6}>
            <button type="button" data-testid="audit-more" onClick={() => onMore(data.nextPageToken!)}>
              Load more
            </button>
          </td>
        </tr>
      )}
    </tbody>
  );
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  const details = entry.details;
  return (
    <tr data-testid="audit-entry">
      <td>
        <TimeAgo iso={entry.at} />
      </td>
      <td data-testid="audit-entry-actor" title={entry.actor.userId ? `user ${entry.actor.userId}` : undefined}>
        {entry.actor.label}
      </td>
      <td class="mono" data-testid="audit-entry-action">
        {entry.action}
      </td>
      <td data-testid="audit-entry-target">{entry.target ? <TargetText entry={entry} /> : <span class="muted">–</span>}</td>
      <td class="mono">{entry.sourceIp ?? <span class="muted">–</span>}</td>
      <td class="mono" title={details ? JSON.stringify(details, null, 2) : undefined}>
        {details ? summary(details) : ""}
      </td>
    </tr>
  );
}

/** A target as people know it: a run's display ID and name when the entry kept them. */
function TargetText({ entry }: { entry: AuditEntry }) {
  const target = entry.target!;
  const details = entry.details ?? {};
  const displayId = typeof details.displayId === "string" ? details.displayId : undefined;
  const name = typeof details.name === "string" ? details.name : undefined;
  return (
    <span>
      {target.type.replace("_", " ")} <span class="mono">{displayId ?? target.id}</span>
      {name !== undefined && ` ${name}`}
    </span>
  );
}

/** Details in one short line: `key: value` pairs, long values cut (the whole JSON on hover). */
function summary(details: Record<string, unknown>): string {
  const text = Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
