// How the end of a series reads (docs/api.md, "The end of a series"): a series that ended in NaN
// or ±Inf says so first, with its last finite value beside it, never the finite value alone as if
// the run were healthy.

import type { DivergedMetric, LastFinite, LastPoint } from "../types.ts";
import { formatNumber } from "./format.ts";
import { kindOfValueFlag, type NonFiniteKind } from "./series.ts";

export interface SeriesEndText {
  /** `last NaN @ 1,880`, or `last 0.25 @ 1,880` for a healthy series; "" without points. */
  text: string;
  /** Set when the series ended non-finite: `last finite 0.00053 @ 1,879` (or `no finite value`). */
  finite?: string;
  /** The kind of the non-finite end (`NaN`, `+Inf`, `-Inf`), for the mark beside a listed run. */
  diverged?: NonFiniteKind;
}

/** The kind of a series' non-finite end (`NaN`, `+Inf`, `-Inf`), undefined when it ended finite or has no points. */
export function endKind(lastPoint: LastPoint | null | undefined): NonFiniteKind | undefined {
  return (lastPoint && kindOfValueFlag(lastPoint.valueFlag)) ?? undefined;
}

/**
 * The mark beside a run whose metrics ended non-finite (the run list's `divergedMetrics`): the kind
 * of the first, how many more, and every one in the hover text. Undefined for a healthy run.
 */
export function divergedRunMark(metrics: readonly DivergedMetric[] | undefined): { text: string; title: string } | undefined {
  const ended = (metrics ?? []).filter((metric) => kindOfValueFlag(metric.valueFlag) !== null);
  if (ended.length === 0) return undefined;
  const more = ended.length > 1 ? ` +${ended.length - 1}` : "";
  return {
    text: `${kindOfValueFlag(ended[0]!.valueFlag)}${more}`,
    title: `Ended non-finite: ${ended.map((metric) => `${metric.logName} ${kindOfValueFlag(metric.valueFlag)} @ ${formatNumber(metric.step)}`).join("; ")}`,
  };
}

export function describeSeriesEnd(lastPoint: LastPoint | null | undefined, last: LastFinite | null | undefined): SeriesEndText {
  if (!lastPoint) return { text: "" };
  const step = formatNumber(lastPoint.step);
  const kind = endKind(lastPoint);
  if (!kind) return { text: `last ${formatNumber(lastPoint.value)} @ ${step}` };
  return {
    text: `last ${kind} @ ${step}`,
    finite: last ? `last finite ${formatNumber(last.value)} @ ${formatNumber(last.step)}` : "no finite value",
    diverged: kind,
  };
}
