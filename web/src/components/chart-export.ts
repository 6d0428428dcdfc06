// A chart saved as a file: the drawn canvas as PNG, with its title above and a legend of its lines
// below (a workspace panel's own legend is a tooltip, not on the canvas), and its points as CSV
// (lib/csv.ts). Both are made in the browser and handed over as a download.

/** One legend entry of the exported picture. */
export interface LegendEntry {
  label: string;
  color: string;
  dash?: boolean;
}

/** At most this many legend entries are written; the rest are counted ("+12 more"). */
const LEGEND_LIMIT = 40;

/** The chart's canvas composed with a title and a legend, as a PNG. */
export function chartPng(canvas: HTMLCanvasElement, title: string, legend: readonly LegendEntry[]): Promise<Blob> {
  const dpr = canvas.width / Math.max(1, canvas.clientWidth || canvas.width);
  const style = getComputedStyle(canvas);
  const text = style.getPropertyValue("--chart-axis").trim() || "#374151";
  const background = style.getPropertyValue("--surface").trim() || "#ffffff";
  const pad = 10 * dpr;
  const titleHeight = 22 * dpr;
  const row = 16 * dpr;
  const measure = document.createElement("canvas").getContext("2d")!;
  measure.font = `${12 * dpr}px sans-serif`;
  // The legend flows in rows as wide as the chart.
  const shown = legend.slice(0, LEGEND_LIMIT);
  const placed: { entry: LegendEntry; x: number; y: number }[] = [];
  let x = pad;
  let y = 0;
  for (const entry of shown) {
    const width = 22 * dpr + measure.measureText(entry.label).width + 14 * dpr;
    if (x + width > canvas.width - pad && x > pad) {
      x = pad;
      y += row;
    }
    placed.push({ entry, x, y });
    x += width;
  }
  const more = legend.length - shown.length;
  const legendHeight = shown.length === 0 ? 0 : y + row + (more > 0 ? row : 0) + pad;
  const out = document.createElement("canvas");
  out.width = canvas.width;
  out.height = titleHeight + canvas.height + legendHeight;
  const ctx = out.getContext("2d")!;
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = text;
  ctx.font = `bold ${13 * dpr}px sans-serif`;
  ctx.textBaseline = "middle";
  ctx.fillText(title, pad, titleHeight / 2);
  ctx.drawImage(canvas, 0, titleHeight);
  ctx.font = `${12 * dpr}px sans-serif`;
  const top = titleHeight + canvas.height;
  for (const { entry, x, y } of placed) {
    const middle = top + y + row / 2;
    ctx.strokeStyle = entry.color;
    ctx.lineWidth = 2 * dpr;
    ctx.setLineDash(entry.dash ? [4 * dpr, 3 * dpr] : []);
    ctx.beginPath();
    ctx.moveTo(x, middle);
    ctx.lineTo(x + 16 * dpr, middle);
    ctx.stroke();
    ctx.fillStyle = text;
    ctx.fillText(entry.label, x + 22 * dpr, middle);
  }
  if (more > 0) ctx.fillText(`+${more} more`, pad, top + y + row * 1.5);
  return new Promise((resolve, reject) =>
    out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the chart could not be drawn as PNG"))), "image/png"),
  );
}

/** Hands a file to the browser as a download. */
export function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by the next turn; it is released after.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
