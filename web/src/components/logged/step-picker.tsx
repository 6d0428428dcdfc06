// A slider over the steps an entry was logged at, the step it shows beside it.

import { formatNumber } from "../../lib/format.ts";
import "./logged.css";

export function StepPicker(props: { steps: readonly number[]; index: number; onIndex: (index: number) => void; label: string }) {
  const { steps, index, onIndex, label } = props;
  if (steps.length === 0) return null;
  const step = steps[index]!;
  return (
    <label class="step-slider">
      <span>
        step <span data-testid="picked-step">{formatNumber(step)}</span>
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

/** Says that a long series was sampled, and how to read it whole. */
export function SampledNote({ shown, total }: { shown: number; total: number }) {
  return (
    <p class="muted" data-testid="sampled-note">
      {formatNumber(shown)} of {formatNumber(total)} steps read, the last one among them; every step is in GET /api/runs/data.
    </p>
  );
}
