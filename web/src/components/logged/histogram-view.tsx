// Histograms over steps: a heatmap of step × value drawn on a canvas (darker: a larger share of
// that step's samples), and the distribution at a step picked with a slider.

import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { formatNumber } from "../../lib/format.ts";
import {
  cellAt,
  type Histogram,
  heatColor,
  heatmapOf,
  parseHistogram,
  positionOf,
  sampleIndices,
  totalCount,
} from "../../lib/histogram.ts";
import type { DataRow } from "../../types.ts";
import { StepPicker } from "../common.tsx";
import { SampledNote } from "./step-picker.tsx";

/** Columns a heatmap draws at most (a longer series is sampled evenly, its last step kept), and its value rows. */
const HEATMAP_COLUMNS = 300;
const HEATMAP_ROWS = 48;

/** Rows parsed into histograms, and the steps whose payload did not hold with why. */
export function parseRows(rows: readonly DataRow[]) {
  const valid: { step: number; histogram: Histogram }[] = [];
  const invalid: { step: number; error: string }[] = [];
  for (const row of rows) {
    const parsed = parseHistogram(row.data);
    if (parsed.ok) valid.push({ step: row.step, histogram: parsed.value });
    else invalid.push({ step: row.step, error: parsed.error });
  }
  return { valid, invalid };
}

export function InvalidNote({ invalid, what }: { invalid: readonly { step: number; error: string }[]; what: string }) {
  if (invalid.length === 0) return null;
  const [first] = invalid;
  return (
    <p class="error" role="alert" data-testid="invalid-entries">
      {invalid.length === 1
        ? `The ${what} at step ${formatNumber(first!.step)}`
        : `${invalid.length} ${what}s (the first at step ${formatNumber(first!.step)})`}{" "}
      could not be read: {first!.error}.
    </p>
  );
}

/** The heatmap; hovering tells a cell's step, values and share, a click picks its step for the distribution. */
function Heatmap({ series, onPick }: { series: readonly { step: number; histogram: Histogram }[]; onPick: (step: number) => void }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hovered, setHovered] = useState<ReturnType<typeof cellAt>>(undefined);
  const map = useMemo(() => {
    const picked = sampleIndices(series.length, HEATMAP_COLUMNS).map((i) => series[i]!);
    return heatmapOf(picked, HEATMAP_ROWS);
  }, [series]);
  useEffect(() => {
    const element = canvas.current;
    const context = element?.getContext("2d");
    if (!element || !context || !map) return;
    const columns = map.steps.length;
    element.width = Math.max(columns, 1) * Math.max(1, Math.floor(600 / Math.max(columns, 1)));
    element.height = HEATMAP_ROWS * 4;
    const cellWidth = element.width / columns;
    const cellHeight = element.height / map.rows;
    context.fillStyle = heatColor(0);
    context.fillRect(0, 0, element.width, element.height);
    for (let column = 0; column < columns; column++)
      for (let row = 0; row < map.rows; row++) {
        const share = map.cells[column * map.rows + row] ?? 0;
        if (share === 0) continue;
        context.fillStyle = heatColor(map.peak === 0 ? 0 : share / map.peak);
        // Row 0 is the lowest value: drawn at the bottom.
        context.fillRect(column * cellWidth, element.height - (row + 1) * cellHeight, Math.ceil(cellWidth), Math.ceil(cellHeight));
      }
    element.dataset.drawn = "true";
  }, [map]);
  if (!map) return null;
  const cellOf = (event: MouseEvent) => {
    const box = (event.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    return cellAt(map, (event.clientX - box.left) / box.width, (event.clientY - box.top) / box.height);
  };
  return (
    <figure class="heatmap" data-testid="heatmap">
      <div class="heatmap-body">
        <div class="heatmap-values muted" aria-hidden="true">
          <span>{formatNumber(map.high)}</span>
          <span>{formatNumber(map.low)}</span>
        </div>
        <canvas
          ref={canvas}
          data-columns={map.steps.length}
          onMouseMove={(event) => setHovered(cellOf(event))}
          onMouseLeave={() => setHovered(undefined)}
          onClick={(event) => {
            const cell = cellOf(event);
            if (cell) onPick(cell.step);
          }}
          role="img"
          aria-label={`Heatmap of ${map.steps.length} steps from ${map.steps[0]} to ${map.steps.at(-1)}, values ${formatNumber(map.low)} to ${formatNumber(map.high)}`}
        />
      </div>
      <figcaption class="heatmap-steps muted">
        <span>step {formatNumber(map.steps[0])}</span>
        <span data-testid="heatmap-readout">
          {hovered
            ? `step ${formatNumber(hovered.step)} · [${formatNumber(hovered.from)}, ${formatNumber(hovered.to)}): ${formatNumber(hovered.share * 100, 3)}% of its samples`
            : "value × step, darker: more of the step's samples; click a step to see it below"}
        </span>
        <span>step {formatNumber(map.steps.at(-1))}</span>
      </figcaption>
    </figure>
  );
}

/** One distribution as bars (SVG), each bar's range and count on hover; `color` for a run's colour. */
export function Distribution({ histogram, color = "var(--accent)", label }: { histogram: Histogram; color?: string; label: string }) {
  const { edges, counts } = histogram;
  const peak = Math.max(...counts);
  const [low, high] = [edges[0]!, edges.at(-1)!];
  const width = 300;
  const height = 100;
  return (
    <figure class="distribution" data-testid="distribution" data-counts={counts.join(",")}>
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={label}>
        {counts.map((count, bin) => {
          const x = positionOf(edges[bin]!, low, high) * width;
          const w = Math.max(0.5, positionOf(edges[bin + 1]!, low, high) * width - x);
          const h = peak === 0 ? 0 : (count / peak) * height;
          return (
            <rect key={bin} x={x} y={height - h} width={w} height={h} fill={color}>
              <title>{`[${formatNumber(edges[bin])}, ${formatNumber(edges[bin + 1])}): ${formatNumber(count)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption class="distribution-axis muted">
        <span>{formatNumber(low)}</span>
        <span>{formatNumber(totalCount(histogram))} samples</span>
        <span>{formatNumber(edges.at(-1))}</span>
      </figcaption>
    </figure>
  );
}

/** A histogram log name of one run: heatmap over its steps and the distribution at a picked step (the last first). */
export function HistogramSeries({ logName, rows, total, sampled }: { logName: string; rows: DataRow[]; total: number; sampled: boolean }) {
  const { valid, invalid } = useMemo(() => parseRows(rows), [rows]);
  const [index, setIndex] = useState<number | undefined>(undefined);
  const current = Math.min(index ?? valid.length - 1, valid.length - 1);
  const shown = valid[current];
  return (
    <>
      {sampled && <SampledNote shown={rows.length} total={total} />}
      <InvalidNote invalid={invalid} what="histogram" />
      {valid.length > 0 && <Heatmap series={valid} onPick={(step) => setIndex(valid.findIndex((entry) => entry.step === step))} />}
      {shown && (
        <>
          <StepPicker steps={valid.map((entry) => entry.step)} index={current} onIndex={setIndex} label={logName} />
          <Distribution histogram={shown.histogram} label={`Distribution of ${logName} at step ${shown.step}`} />
        </>
      )}
    </>
  );
}
