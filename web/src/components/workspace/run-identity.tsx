// A run's colour swatch and eye toggle in the runs table: the colour is the run's in every chart of
// the page (run-colors.tsx), and clicking the swatch picks another (remembered per project); the eye
// hides or shows the run in every workspace panel (remembered per project).

import { useRunColor } from "../run-colors.tsx";
import { useHiddenRuns, usePickedColors } from "./stored.ts";

export function RunIdentity({ projectName, runId, runName }: { projectName: string; runId: number; runName: string }) {
  const { hidden, toggle } = useHiddenRuns(projectName);
  const { picked, pick } = usePickedColors(projectName);
  const color = useRunColor()(runId);
  const isHidden = hidden.has(runId);
  return (
    <span class="run-identity">
      <label class="swatch swatch-pick" style={{ background: color }} data-color={color} title="Pick this run's colour">
        <input
          type="color"
          class="visually-hidden"
          aria-label={`Colour of ${runName}`}
          data-testid="run-color"
          value={picked.get(runId) ?? color}
          onChange={(event) => pick(runId, event.currentTarget.value)}
        />
      </label>
      <button
        type="button"
        class={isHidden ? "icon eye eye-off" : "icon eye"}
        aria-pressed={isHidden}
        aria-label={`${isHidden ? "Show" : "Hide"} ${runName} in the charts`}
        title={isHidden ? "Hidden in the charts: show" : "Shown in the charts: hide"}
        data-testid="run-eye"
        onClick={() => toggle(runId)}
      >
        <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true">
          <path d="M1 12s4-7 11-7 11 7 11 7-4 7-11 7S1 12 1 12z" />
          <circle cx="12" cy="12" r="3" />
          {isHidden && <path d="M3 3l18 18" />}
        </svg>
      </button>
    </span>
  );
}
