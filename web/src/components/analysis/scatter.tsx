// A scatter of the sweep's runs: a config key or metric across, a metric up, coloured by a third
// (sweep-axes.ts places every kind of value, the missing ones on a "—" slot). Drawn on a canvas.

import { useEffect, useRef, useState } from "preact/hooks";
import { formatNumber } from "../../lib/format.ts";
import { type Axis, positionOf, type SweepRow, ticksOf, valueOn } from "../../lib/sweep-axes.ts";
import { rampColor } from "./parallel-coordinates.tsx";

const HEIGHT = 260;
const PAD = { left: 64, right: 16, top: 12, bottom: 40 };

function AxisSelect({
  label,
  axes,
  value,
  onChange,
}: {
  label: string;
  axes: readonly Axis[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <label>
      {label}{" "}
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)} aria-label={`scatter ${label}`}>
        {axes.map((axis) => (
          <option key={axis.id} value={axis.id}>
            {axis.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Scatter({
  rows,
  axes,
  metricAxes,
  defaults,
}: {
  rows: readonly SweepRow[];
  /** Every axis (config keys and metrics): across and colour. */
  axes: readonly Axis[];
  /** The metric axes: up. */
  metricAxes: readonly Axis[];
  defaults: { x: string; y: string; color: string };
}) {
  const [choice, setChoice] = useState(defaults);
  const x = axes.find((axis) => axis.id === choice.x) ?? axes.find((axis) => axis.id === defaults.x) ?? axes[0];
  const y = metricAxes.find((axis) => axis.id === choice.y) ?? metricAxes.find((axis) => axis.id === defaults.y) ?? metricAxes[0];
  const color = axes.find((axis) => axis.id === choice.color);
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const observer = new ResizeObserver(() => setWidth(box.current?.clientWidth ?? 0));
    observer.observe(box.current!);
    return () => observer.disconnect();
  }, []);
  const xOf = (position: number) => PAD.left + (width - PAD.left - PAD.right) * position;
  const yOf = (position: number) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - position);

  useEffect(() => {
    const element = canvas.current;
    if (!element || width === 0 || !x || !y) return;
    const ratio = devicePixelRatio;
    element.width = width * ratio;
    element.height = HEIGHT * ratio;
    const ctx = element.getContext("2d")!;
    ctx.scale(ratio, ratio);
    ctx.clearRect(0, 0, width, HEIGHT);
    let drawn = 0;
    for (const row of rows) {
      const yValue = valueOn(row, y.id);
      if (yValue === undefined) continue; // no value of the metric: nothing to place up
      // Runs on one level spread a little sideways, so they do not hide each other.
      const jitter =
        x.kind === "categorical" || valueOn(row, x.id) === undefined ? (((row.id * 2654435761) % 1000) / 1000 - 0.5) * 0.04 : 0;
      ctx.fillStyle = color ? rampColor(positionOf(color, valueOn(row, color.id))) : "#2563eb";
      ctx.globalAlpha = 0.8;
      ctx.beginPath();
      ctx.arc(xOf(positionOf(x, valueOn(row, x.id)) + jitter), yOf(positionOf(y, yValue)), 3.5, 0, 2 * Math.PI);
      ctx.fill();
      drawn++;
    }
    ctx.globalAlpha = 1;
    element.dataset.points = String(drawn);
  }, [rows, x, y, color, width]);

  return (
    <div class="scatter" data-testid="scatter">
      <div class="toolbar">
        <AxisSelect label="x" axes={axes} value={x?.id ?? ""} onChange={(id) => setChoice({ ...choice, x: id })} />
        <AxisSelect label="y" axes={metricAxes} value={y?.id ?? ""} onChange={(id) => setChoice({ ...choice, y: id })} />
        <AxisSelect label="colour" axes={axes} value={color?.id ?? ""} onChange={(id) => setChoice({ ...choice, color: id })} />
      </div>
      <div class="scatter-plot" ref={box} style={{ height: `${HEIGHT}px` }}>
        <canvas ref={canvas} style={{ width: `${width}px`, height: `${HEIGHT}px` }} />
        {width > 0 && x && y && (
          <>
            {ticksOf(x, formatNumber).map(([position, text]) => (
              <span
                key={`x${position}:${text}`}
                class="scatter-tick scatter-x"
                style={{ left: `${xOf(position)}px`, top: `${HEIGHT - PAD.bottom + 4}px` }}
                title={text}
              >
                {text}
              </span>
            ))}
            {ticksOf(y, formatNumber).map(([position, text]) => (
              <span
                key={`y${position}:${text}`}
                class="scatter-tick scatter-y"
                style={{ top: `${yOf(position)}px`, width: `${PAD.left - 6}px` }}
                title={text}
              >
                {text}
              </span>
            ))}
          </>
        )}
      </div>
    </div>
  );
}
