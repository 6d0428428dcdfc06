// The metric a page shows (compare, leaderboard): `?metric=` in the URL, else defaultMetric (a validation loss, never a system metric).

import { api } from "../api.ts";
import { useServerState, type Async } from "../hooks.ts";
import { defaultMetric } from "../lib/metric-choice.ts";
import { useLocation } from "../router.tsx";

/** The project's metric names (of the given runs only, when given) and the chosen one ("" when there is none). */
export function useMetricChoice(projectName: string, runIds?: number[]): { names: Async<{ metricNames: string[] }>; metric: string } {
  const { query } = useLocation();
  const names = useServerState(["metricNames", projectName, runIds?.join(",")], () => api.metricNames(projectName, runIds));
  return { names, metric: query.get("metric") ?? defaultMetric(names.data?.metricNames ?? []) };
}

export function MetricSelect(props: { names: string[]; metric: string; onChange: (metric: string) => void; testId: string }) {
  return (
    <label>
      Metric
      <select value={props.metric} onChange={(event) => props.onChange(event.currentTarget.value)} data-testid={props.testId}>
        {props.names.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
