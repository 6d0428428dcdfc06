// Small pieces every view uses: status badges, errors, loading notes, pagers, page titles, times,
// the connection notice.

import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useServerReachable } from "../hooks.ts";
import { formatAbsoluteTime, formatNumber, formatRelativeTime } from "../lib/format.ts";
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

/** Tags on one line, cut at the cell's width; hovering shows them all. */
export function TruncatedTags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return null;
  return (
    <div class="truncate tags-cell" title={tags.join(", ")}>
      <TagList tags={tags} />
    </div>
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

/** `shown`, when given, is how many rows the page really holds (a server can end a page early by size); Next continues after them. */
export function Pager(props: {
  offset: number;
  limit: number;
  shown?: number;
  total: number;
  onOffset: (offset: number) => void;
  label: string;
}) {
  const { offset, limit, total, onOffset, label } = props;
  const last = Math.min(offset + (props.shown || limit), total);
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span data-testid="pager-range">
        {total === 0 ? 0 : offset + 1}–{last} of {total.toLocaleString("en-US")} {label}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onOffset(last)}>
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

/** A time as "3 min ago", kept current; hovering shows it in full with its time zone. */
export function TimeAgo({ iso }: { iso: string | null | undefined }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 10_000);
    return () => clearInterval(timer);
  }, []);
  if (!iso) return <span>–</span>;
  return (
    <time dateTime={iso} title={formatAbsoluteTime(iso)}>
      {formatRelativeTime(iso, Math.max(now, Date.now()))}
    </time>
  );
}

/** Shown while the server cannot be reached; views keep what they show and retry on their own. */
export function ConnectionNotice() {
  const reachable = useServerReachable();
  if (reachable) return null;
  return (
    <p class="connection-notice" role="status" data-testid="reconnecting">
      Server unreachable · reconnecting…
    </p>
  );
}

/** The metric search box of the workspace and the run page: a plain substring, regex characters match themselves. */
export function MetricSearch(props: { count: number; value: string; onChange: (value: string) => void; testId?: string }) {
  return (
    <label>
      Metrics
      <input
        type="search"
        placeholder={`Filter ${props.count} metrics`}
        value={props.value}
        onInput={(event) => props.onChange(event.currentTarget.value)}
        data-testid={props.testId}
      />
    </label>
  );
}

/** A slider over the steps something was logged at (images, histograms, tables), the step it shows beside it. */
export function StepPicker(props: {
  steps: readonly number[];
  index: number;
  onIndex: (index: number) => void;
  label: string;
  /** The test ID of the shown step. */
  testId?: string;
}) {
  const { steps, index, onIndex, label, testId = "picked-step" } = props;
  if (steps.length === 0) return null;
  const step = steps[index]!;
  return (
    <label class="step-slider">
      <span>
        step <span data-testid={testId}>{formatNumber(step)}</span>
      </span>
      <input
        type="range"
        min={0}
        max={steps.length - 1}
        value={index}
        disabled={steps.length === 1}
        aria-label={`Step of ${label}`}
        aria-valuetext={`step ${step}, ${index + 1} of ${steps.length}`}
        onInput={(event) => onIndex(Number(event.currentTarget.value))}
      />
      <span class="muted">
        {index + 1} of {steps.length}
      </span>
    </label>
  );
}
