// Status, IDs, timings, and the run's editable tags and notes.

import { useEffect, useState } from "preact/hooks";
import { api } from "../../api.ts";
import { formatRunDuration } from "../../lib/format.ts";
import { describeSeriesEnd } from "../../lib/series-end.ts";
import type { MetricStatistics, RunDetails } from "../../types.ts";
import { ErrorNote, StatusBadge, TimeAgo } from "../common.tsx";

/** How many diverged metrics the header names before counting the rest. */
const NAMED_DIVERGED = 3;

/** The metrics whose series ended in NaN or ±Inf, named with their end and last finite value. */
function DivergedMetrics({ metrics }: { metrics: MetricStatistics[] }) {
  const diverged = metrics.filter((metric) => metric.lastPoint && metric.lastPoint.valueFlag !== "");
  if (diverged.length === 0) return null;
  return (
    <div class="diverged-note" data-testid="diverged" role="note">
      <dt>Ended non-finite</dt>
      <dd>
        {diverged.slice(0, NAMED_DIVERGED).map((metric) => {
          const end = describeSeriesEnd(metric.lastPoint, metric.last);
          return (
            <span key={metric.logName} class="diverged-metric">
              <span class="mono">{metric.logName}</span>: <span class="diverged">{end.text}</span> <span class="muted">({end.finite})</span>
            </span>
          );
        })}
        {diverged.length > NAMED_DIVERGED && <span class="muted"> and {diverged.length - NAMED_DIVERGED} more</span>}
      </dd>
    </div>
  );
}

export function RunHeader({
  run,
  metrics,
  onSaved,
  live,
}: {
  run: RunDetails;
  metrics: MetricStatistics[] | undefined;
  onSaved: () => void;
  live: boolean;
}) {
  const [tagText, setTagText] = useState("");
  const [notes, setNotes] = useState(run.notes ?? "");
  const [saved, setSaved] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => setNotes(run.notes ?? ""), [run.notes]);

  const save = async (what: string, write: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await write();
      setSaved(`${what} saved`);
      onSaved();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const addTag = (event: Event) => {
    event.preventDefault();
    const tag = tagText.trim();
    if (tag === "" || run.tags.includes(tag)) return;
    setTagText("");
    void save("Tags", () => api.updateTags(run.id, [...run.tags, tag]));
  };

  return (
    <div class="run-header">
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={run.status} />{" "}
            {live && (
              <span class="live" title="Updates every few seconds">
                ● live
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>ID</dt>
          <dd class="mono">{run.displayId ?? run.id}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <TimeAgo iso={run.createdAt} />
          </dd>
        </div>
        <div>
          <dt>{run.status === "RUNNING" ? "Running for" : "Duration"}</dt>
          <dd>{formatRunDuration(run, Date.now())}</dd>
        </div>
        <div>
          <dt>Last update</dt>
          <dd data-testid="last-update">
            <TimeAgo iso={run.updatedAt} />
          </dd>
        </div>
        {metrics && <DivergedMetrics metrics={metrics} />}
      </dl>
      <div class="tags-editor" data-testid="tags">
        <span class="label">Tags</span>
        {run.tags.map((tag) => (
          <span class="tag" key={tag}>
            {tag}
            <button
              type="button"
              class="link"
              aria-label={`Remove tag ${tag}`}
              onClick={() =>
                save("Tags", () =>
                  api.updateTags(
                    run.id,
                    run.tags.filter((t) => t !== tag),
                  ),
                )
              }
            >
              ✕
            </button>
          </span>
        ))}
        <form onSubmit={addTag}>
          <input
            aria-label="New tag"
            placeholder="add tag"
            value={tagText}
            onInput={(event) => setTagText(event.currentTarget.value)}
            maxLength={100}
          />
        </form>
      </div>
      <form
        class="notes"
        onSubmit={(event) => {
          event.preventDefault();
          void save("Notes", () => api.updateNotes(run.id, notes === "" ? null : notes));
        }}
      >
        <label for="run-notes">Notes</label>
        <textarea id="run-notes" rows={2} maxLength={1000} value={notes} onInput={(event) => setNotes(event.currentTarget.value)} />
        <button type="submit" disabled={notes === (run.notes ?? "")}>
          Save notes
        </button>
      </form>
      <p class="muted" role="status">
        {saved}
      </p>
      <ErrorNote error={error} />
    </div>
  );
}
