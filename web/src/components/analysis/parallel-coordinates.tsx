// Parallel coordinates of a sweep: one vertical axis per config key and metric (sweep-axes.ts), one
// line per run through its values, coloured by the chosen metric. Lines are drawn on a canvas (2,000
// runs × a dozen axes); the axes, their ticks and the brushes are elements above it. Drag along an
// axis to brush it: the runs outside every brush fade here, and the page's table and charts keep
// only the runs inside (through the page's filter, views/runs.tsx); a click on an axis clears its brush.

import { useEffect, useRef, useState } from "preact/hooks";
import { formatNumber } from "../../lib/format.ts";
import { type Axis, type Brush, brushOf, inBrush, positionOf, type SweepRow, ticksOf, valueOn } from "../../lib/sweep-axes.ts";

const HEIGHT = 260;
const TOP = 28;
const BOTTOM = 18;
const SIDE = 60;

/** A colour along a dark-blue → teal → yellow ramp (viridis-like) for t in [0, 1]. */
export function rampColor(t: number): string {
  const stops = [
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
  ];
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  const [a, b] = [stops[i]!, stops[i + 1]!];
  return `rgb(${a.map((c, k) => Math.round(c + (b[k]! - c) * f)).join(" ")})`;
}

export function ParallelCoordinates({
  rows,
  axes,
  colorAxis,
  brushes,
  onBrushes,
}: {
  rows: readonly SweepRow[];
  axes: readonly Axis[];
  /** The axis whose value colours each line. */
  colorAxis: Axis | undefined;
  brushes: readonly Brush[];
  onBrushes: (brushes: Brush[]) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [drag, setDrag] = useState<{ axis: number; from: number; to: number } | null>(null);
  useEffect(() => {
    const observer = new ResizeObserver(() => setWidth(box.current?.clientWidth ?? 0));
    observer.observe(box.current!);
    return () => observer.disconnect();
  }, []);
  const xOf = (index: number) => (axes.length === 1 ? width / 2 : SIDE + ((width - 2 * SIDE) * index) / (axes.length - 1));
  const yOf = (position: number) => TOP + (HEIGHT - TOP - BOTTOM) * (1 - position);
  const positionAt = (y: number) => 1 - (y - TOP) / (HEIGHT - TOP - BOTTOM);

  useEffect(() => {
    const element = canvas.current;
    if (!element || width === 0) return;
    const ratio = devicePixelRatio;
    element.width = width * ratio;
    element.height = HEIGHT * ratio;
    const ctx = element.getContext("2d")!;
    ctx.scale(ratio, ratio);
    ctx.clearRect(0, 0, width, HEIGHT);
    const kept = rows.map((row) => brushes.every((brush) => inBrush(row, brush)));
    const draw = (row: SweepRow, color: string, alpha: number) => {
      ctx.strokeStyle = color;
      ctx.globalAlpha = alpha;
      ctx.beginPath();
      for (const [i, axis] of axes.entries()) {
        const x = xOf(i);
        const y = yOf(positionOf(axis, valueOn(row, axis.id)));
        if (i === 0) ctx.moveTo(x, y);
        else ctx.lineTo(x, y);
      }
      ctx.stroke();
    };
    ctx.lineWidth = 1;
    // Faded runs first, so the brushed ones are drawn over them.
    for (const [i, row] of rows.entries()) if (!kept[i]) draw(row, "#9ca3af", 0.25);
    const alpha = rows.length > 500 ? 0.35 : 0.7;
    for (const [i, row] of rows.entries())
      if (kept[i]) draw(row, colorAxis ? rampColor(positionOf(colorAxis, valueOn(row, colorAxis.id))) : "#2563eb", alpha);
    ctx.globalAlpha = 1;
    element.dataset.lines = String(rows.length);
    element.dataset.kept = String(kept.filter(Boolean).length);
  }, [rows, axes, colorAxis, brushes, width]);

  const onPointerDown = (event: PointerEvent) => {
    const rect = box.current!.getBoundingClientRect();
    const x = event.clientX - rect.left;
    const axis = axes.findIndex((_, i) => Math.abs(xOf(i) - x) < 14);
    if (axis < 0) return;
    event.preventDefault();
    (event.currentTarget as HTMLElement).setPointerCapture(event.pointerId);
    const at = positionAt(event.clientY - rect.top);
    setDrag({ axis, from: at, to: at });
  };
  const onPointerMove = (event: PointerEvent) => {
    if (!drag) return;
    const rect = box.current!.getBoundingClientRect();
    setDrag({ ...drag, to: positionAt(event.clientY - rect.top) });
  };
  const onPointerUp = () => {
    if (!drag) return;
    const axis = axes[drag.axis]!;
    const others = brushes.filter((brush) => brush.axis !== axis.id);
    // A click (no drag) clears the axis's brush; a drag sets it.
    onBrushes(Math.abs(drag.to - drag.from) < 0.02 ? others : [...others, brushOf(axis, drag.from, drag.to)]);
    setDrag(null);
  };

  return (
    <div
      class="parallel-coordinates"
      ref={box}
      style={{ height: `${HEIGHT}px` }}
      data-testid="parallel-coordinates"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
    >
      <canvas ref={canvas} style={{ width: `${width}px`, height: `${HEIGHT}px` }} />
      {width > 0 &&
        axes.map((axis, i) => {
          const brush = brushes.find((candidate) => candidate.axis === axis.id);
          const span = drag?.axis === i ? [drag.from, drag.to] : brush ? brushSpan(axis, brush) : null;
          return (
            <div key={axis.id} class="pc-axis" data-axis={axis.id} style={{ left: `${xOf(i)}px` }}>
              <span class="pc-label" title={axis.label}>
                {axis.label}
              </span>
              {ticksOf(axis, formatNumber).map(([position, text]) => (
                <span key={`${position}:${text}`} class="pc-tick" style={{ top: `${yOf(position)}px` }} title={text}>
                  {text}
                </span>
              ))}
              {span && (
                <span
                  class="pc-brush"
                  data-testid="pc-brush"
                  style={{ top: `${yOf(Math.max(span[0]!, span[1]!))}px`, height: `${Math.abs(yOf(span[0]!) - yOf(span[1]!))}px` }}
                />
              )}
            </div>
          );
        })}
    </div>
  );
}

/** Where a brush from the URL lies on its axis (positions), to draw it. */
function brushSpan(axis: Axis, brush: Brush): [number, number] | null {
  const positions: number[] = [];
  if (brush.range) positions.push(positionOf(axis, brush.range[0]), positionOf(axis, brush.range[1]));
  for (const value of brush.values ?? []) positions.push(positionOf(axis, value));
  if (brush.missing) positions.push(0);
  if (positions.length === 0) return null;
  const pad = axis.kind === "categorical" || positions.length === 1 ? 0.03 : 0;
  return [Math.max(0, Math.min(...positions) - pad), Math.min(1, Math.max(...positions) + pad)];
}
