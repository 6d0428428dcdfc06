// Runs ranked by one metric, with the aggregation and direction the user picks; all in the URL.

import { AGGREGATIONS, DIRECTIONS } from "../../../src/domain/shared-with-ui.ts";
import { api } from "../api.ts";
import { ErrorNote, Loading, PageTitle, Pager, ProjectCrumb, StatusBadge, TimeAgo, TruncatedTags } from "../components/common.tsx";
import { MetricSelect, useMetricChoice } from "../components/metric-select.tsx";
import { useServerState } from "../hooks.ts";
import { formatNumber } from "../lib/format.ts";
import { endKind } from "../lib/series-end.ts";
import { Link, runPath, setQuery, useLocation } from "../router.tsx";
import type { LastPoint } from "../types.ts";

/** The server's aggregations, LAST (the default) first. */
const AGGREGATION_CHOICES: readonly (typeof AGGREGATIONS)[number][] = ["LAST", ...AGGREGATIONS.filter((name) => name !== "LAST")];
const PAGE = 50;

/** Marks a run whose series ended non-finite: it is still ranked by its last finite value. */
function DivergedMark({ lastPoint }: { lastPoint: LastPoint | null }) {
  const kind = endKind(lastPoint);
  if (!lastPoint || !kind) return null;
  const step = formatNumber(lastPoint.step);
  return (
    <span class="diverged" data-diverged={kind} title={`The series ended ${kind} at step ${step}; it is ranked by its finite values.`}>
      {" "}
      · ended {kind} @ {step}
    </span>
  );
}

export function LeaderboardPage({ projectName }: { projectName: string }) {
  const { query } = useLocation();
  const { names, metric } = useMetricChoice(projectName);
  // A hand-edited URL with an unknown choice falls back to the default rather than a failed request.
  const aggregation = AGGREGATION_CHOICES.find((name) => name === query.get("aggregation")) ?? "LAST";
  const direction = DIRECTIONS.find((name) => name === query.get("direction")) ?? "ASC";
  const offset = Number(query.get("offset") ?? 0) || 0;
  const board = useServerState(
    ["leaderboard", projectName, metric, aggregation, direction, offset],
    () => api.leaderboard({ projectName, logName: metric, aggregation, direction, limit: PAGE, offset }),
    { enabled: metric !== "" },
  );

  return (
    <section>
      <ProjectCrumb projectName={projectName} />
      <PageTitle title="Leaderboard" />
      <div class="toolbar">
        <MetricSelect
          names={names.data?.metricNames ?? []}
          metric={metric}
          onChange={(name) => setQuery({ metric: name, offset: undefined })}
          testId="leaderboard-metric"
        />
        <label>
          Aggregation
          <select value={aggregation} onChange={(event) => setQuery({ aggregation: event.currentTarget.value, offset: undefined })}>
            {AGGREGATION_CHOICES.map((name) => (
              <option key={name} value={name}>
                {name.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
        <label>
          Direction
          <select value={direction} onChange={(event) => setQuery({ direction: event.currentTarget.value, offset: undefined })}>
            <option value="ASC">lowest first</option>
            <option value="DESC">highest first</option>
          </select>
        </label>
      </div>
      <ErrorNote error={names.error ?? board.error} />
      {names.data?.metricNames.length === 0 && <p class="muted">This project has no metrics yet.</p>}
      {metric && !board.data && board.loading && <Loading what="ranking" />}
      {board.data && board.data.total === 0 && (
        <p class="muted" data-testid="leaderboard-empty">
          No run of this project has a value of “{metric}” to rank.
        </p>
      )}
      {board.data && board.data.total > 0 && (
        <>
          <div class="table-scroll">
            <table class="data-table" data-testid="leaderboard">
              <thead>
                <tr>
                  <th scope="col" class="number">
                    Rank
                  </th>
                  <th scope="col">Run</th>
                  <th scope="col" class="number">
                    {aggregation.toLowerCase()} of {metric}
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {board.data.runs.map((entry) => (
                  <tr key={entry.runId}>
                    <td class="number">{entry.rank}</td>
                    <td>
                      <Link href={runPath(projectName, entry.runId)} class="truncate run-name" title={entry.runName}>
                        {entry.runName}
                      </Link>
                      <DivergedMark lastPoint={entry.lastPoint} />
                    </td>
                    <td class="number" data-testid="leaderboard-value">
                      {formatNumber(entry.value)}
                    </td>
                    <td>
                      <StatusBadge status={entry.status} />
                    </td>
                    <td>
                      <TruncatedTags tags={entry.tags} />
                    </td>
                    <td>
                      <TimeAgo iso={entry.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            offset={offset}
            limit={PAGE}
            total={board.data.total}
            label="ranked runs"
            onOffset={(next) => setQuery({ offset: next || undefined })}
          />
        </>
      )}
    </section>
  );
}
