// Text by step: a string series (pluto-ml's string metrics) as a list of step and value; data rows
// of a type no view knows (a graph, another client's payload) shown as their raw text, cut at a
// bounded size, so what was logged is always visible.

import { formatBytes, formatNumber } from "../../lib/format.ts";
import { isTextData } from "../../lib/logged-types.ts";
import type { DataRow } from "../../types.ts";
import { SampledNote } from "./step-picker.tsx";

/** Characters of one entry shown; the rest is counted. */
const SHOWN_CHARS = 2000;

function Entry({ row }: { row: DataRow }) {
  const cut = row.data.length > SHOWN_CHARS;
  const text = cut ? `${row.data.slice(0, SHOWN_CHARS)}…` : row.data;
  return (
    <li data-step={row.step}>
      <span class="muted text-step">step {formatNumber(row.step)}</span>
      {isTextData(row.dataType) ? (
        <span class="text-value">{text}</span>
      ) : (
        <details class="text-value">
          <summary>
            {row.dataType} · {formatBytes(new TextEncoder().encode(row.data).length)} (no view for this data type: its text)
          </summary>
          <pre>{text}</pre>
        </details>
      )}
      {cut && <span class="muted"> ({formatNumber(row.data.length - SHOWN_CHARS)} more characters)</span>}
    </li>
  );
}

export function TextSeries({ rows, total, sampled }: { rows: DataRow[]; total: number; sampled: boolean }) {
  return (
    <>
      {sampled && <SampledNote shown={rows.length} total={total} />}
      <ol class="text-series" data-testid="text-series">
        {rows.map((row) => (
          <Entry key={row.step} row={row} />
        ))}
      </ol>
    </>
  );
}
