// Says when a logged series was read sampled (the step picker is components/common.tsx's StepPicker).

import { formatNumber } from "../../lib/format.ts";
import "./logged.css";

/** Says that a long series was sampled, and how to read it whole. */
export function SampledNote({ shown, total }: { shown: number; total: number }) {
  return (
    <p class="muted" data-testid="sampled-note">
      {formatNumber(shown)} of {formatNumber(total)} steps read, the last one among them; every step is in GET /api/runs/data.
    </p>
  );
}
