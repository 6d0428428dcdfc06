// One uPlot chart. Drag to select a range (the owner re-fetches it at full resolution), double-click
// to go back; non-finite points are drawn as markers on the plot's edges instead of as values.

import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { ChartSeries, NonFiniteKind, XAxis } from "../lib/series.ts";

export const PALETTE = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2", "#65a30d", "#ea580c", "#4b5563"];

export interface ChartProps {
  x: number[];
  series: ChartSeries[];
  markers: { x: number; kind: NonFiniteKind; color: string }[];
  xAxis: XAxis;
  logScale: boolean;
  height?: number;
  onZoom?: (min: number, max: number) => void;
  onReset?: () => void;
}

const MARKER_COLORS: Record<NonFiniteKind, string> = { NaN: "#b91c1c", "+Inf": "#9333ea", "-Inf": "#9333ea" };

function drawMarkers(plot: uPlot, markers: ChartProps["markers"]): void {
  const { ctx, bbox } = plot;
  const size = 5 * devicePixelRatio;
  ctx.save();
  for (const marker of markers) {
    const x = plot.valToPos(marker.x, "x", true);
    if (x < bbox.left || x > bbox.left + bbox.width) continue;
    const top = marker.kind === "+Inf";
    const y = top ? bbox.top + size : bbox.top + bbox.height - size;
    ctx.fillStyle = MARKER_COLORS[marker.kind];
    ctx.beginPath();
    if (marker.kind === "NaN") ctx.arc(x, y, size * 0.8, 0, 2 * Math.PI);
    else {
      const tip = top ? -size : size;
      ctx.moveTo(x, y + tip);
      ctx.lineTo(x - size, y - tip);
      ctx.lineTo(x + size, y - tip);
      ctx.closePath();
    }
    ctx.fill();
  }
  ctx.restore();
}

const alignedData = (props: ChartProps) => [props.x, ...props.series.map((series) => series.values)] as uPlot.AlignedData;

export function Chart(props: ChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const drawnData = useRef<ChartSeries[] | null>(null);
  const latest = useRef(props);
  latest.current = props;
  const shapeKey = `${props.xAxis}|${props.logScale}|${props.series.map((s) => `${s.label}:${s.color}:${s.faint ?? false}`).join(",")}`;

  useEffect(() => {
    const element = container.current!;
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 200),
      height: props.height ?? 220,
      scales: { x: { time: props.xAxis === "time" }, y: { distr: props.logScale ? 3 : 1 } },
      series: [
        { label: props.xAxis === "step" ? "step" : "time" },
        ...props.series.map((series) => ({
          label: series.label,
          stroke: series.faint ? `${series.color}40` : series.color,
          width: series.faint ? 1 : 1.5,
          spanGaps: true,
          points: { show: false },
          show: true,
        })),
      ],
      legend: { live: true },
      cursor: { drag: { x: true, y: false, setScale: false } },
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width < 2) return;
            const min = u.posToVal(u.select.left, "x");
            const max = u.posToVal(u.select.left + u.select.width, "x");
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            latest.current.onZoom?.(min, max);
          },
        ],
        draw: [
          (u) => {
            drawMarkers(u, latest.current.markers);
            element.dataset.drawn = "true";
          },
        ],
      },
    };
    const instance = new uPlot(options, alignedData(props), element);
    drawnData.current = props.series;
    plot.current = instance;
    const onDoubleClick = () => latest.current.onReset?.();
    instance.over.addEventListener("dblclick", onDoubleClick);
    const resize = new ResizeObserver(() => instance.setSize({ width: Math.max(element.clientWidth, 200), height: options.height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      instance.destroy();
      plot.current = null;
      delete element.dataset.drawn;
    };
    // The chart is rebuilt only when its shape changes; new data goes through setData below.
  }, [shapeKey]);

  useEffect(() => {
    // A chart just built already shows this data; drawing it again would double the first paint.
    if (!plot.current || drawnData.current === props.series) return;
    drawnData.current = props.series;
    plot.current.setData(alignedData(props));
  }, [props.series]);

  return <div class="chart-canvas" ref={container} data-points={props.x.length} data-nonfinite={props.markers.length} />;
}
