// Small pieces every view uses: status badges, errors, loading notes, pagers, page titles.

import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { Link, projectPath } from "../router.tsx";

export function StatusBadge({ status }: { status: string }) {
  return <span class={`status status-${status.toLowerCase()}`}>{status}</span>;
}

export function TagList({ tags }: { tags: string[] }) {
  return (
    <>
      {tags.map((tag) => (
        <span class="tag" key={tag}>
          {tag}
        </span>
      ))}
    </>
  );
}

/** The link back to the project above a project's pages. */
export function ProjectCrumb({ projectName }: { projectName: string }) {
  return (
    <p class="breadcrumbs">
      <Link href={projectPath(projectName)}>{projectName}</Link> /
    </p>
  );
}

export function ErrorNote({ error }: { error: string | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-busy="true">
      Loading {what}…
    </p>
  );
}

export function Pager(props: { offset: number; limit: number; total: number; onOffset: (offset: number) => void; label: string }) {
  const { offset, limit, total, onOffset, label } = props;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span data-testid="pager-range">
        {total === 0 ? 0 : offset + 1}–{last} of {total.toLocaleString("en-US")} {label}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}

export function PageTitle({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Stepwise`;
  }, [title]);
  return (
    <div class="page-title">
      <h1>{title}</h1>
      {children}
    </div>
  );
}
