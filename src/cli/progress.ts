/**
 * A progress line for long CLI commands (import, export). On a terminal it redraws one line in
 * place (`\r`, then clear to the end of the line) with the count, the rate and, when the total
 * is known, the ETA; otherwise (a pipe, a log file, CI) it prints a plain line at most every
 * `plainIntervalMs`, so logs stay readable. `finish` always prints the final line.
 */
export interface ProgressOptions {
  /** What is being counted, shown after the numbers: "points", "rows", "bytes". */
  unit: string;
  /** The count when done, for the percentage and the ETA; omitted when unknown. */
  total?: number;
  /** Where to write: process.stdout by default. A TTY stream (isTTY true) gets the redrawn line. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds since some origin: Date.now by default (tests pass their own). */
  now?: () => number;
  /** Least time between two redraws on a terminal. */
  ttyIntervalMs?: number;
  /** Least time between two plain lines. */
  plainIntervalMs?: number;
}

export class Progress {
  private readonly stream: NodeJS.WritableStream & { isTTY?: boolean };
  private readonly now: () => number;
  private readonly tty: boolean;
  private readonly intervalMs: number;
  private readonly startedAt: number;
  private lastDrawnAt = Number.NEGATIVE_INFINITY;
  private done = 0;
  private drawnOnTty = false;
  private detail = "";

  constructor(
    private readonly label: string,
    private readonly options: ProgressOptions,
  ) {
    this.stream = options.stream ?? process.stdout;
    this.now = options.now ?? Date.now;
    this.tty = this.stream.isTTY === true;
    this.intervalMs = this.tty ? (options.ttyIntervalMs ?? 100) : (options.plainIntervalMs ?? 5000);
    this.startedAt = this.now();
  }

  /** Sets the count done so far; draws when the interval since the last draw has passed. */
  update(done: number): void {
    this.done = done;
    const at = this.now();
    if (at - this.lastDrawnAt < this.intervalMs) return;
    this.lastDrawnAt = at;
    this.draw(this.line(at));
  }

  /** A note shown at the end of the redrawn lines (not the final one), such as "3 of 10 runs, ETA 2m05s". */
  describe(detail: string): void {
    this.detail = detail;
  }

  /** Adds to the count done so far. */
  advance(by: number): void {
    this.update(this.done + by);
  }

  /** Prints the final line (with `suffix`, e.g. ", 3 records skipped") and ends it with a newline. */
  finish(suffix = ""): void {
    const at = this.now();
    const seconds = Math.max(at - this.startedAt, 1) / 1000;
    const text = `${this.label}: ${count(this.done)} ${this.options.unit} in ${duration(seconds)} (${rate(this.done / seconds)} ${this.options.unit}/s)${suffix}`;
    if (this.tty) this.stream.write(`\r${text}\x1b[K\n`);
    else this.stream.write(`${text}\n`);
    this.drawnOnTty = false;
  }

  /** Ends a redrawn line without a final report (before printing an error on a terminal). */
  interrupt(): void {
    if (this.tty && this.drawnOnTty) this.stream.write("\n");
    this.drawnOnTty = false;
  }

  /** The line as it reads at `at`: count, percentage, rate and ETA when known. */
  line(at: number): string {
    const seconds = (at - this.startedAt) / 1000;
    const perSecond = seconds > 0 ? this.done / seconds : 0;
    const { total, unit } = this.options;
    let text = `${this.label}: ${count(this.done)}`;
    if (total !== undefined) {
      const percent = total > 0 ? Math.min(100, (100 * this.done) / total) : 100;
      text += `/${count(total)} ${unit} (${percent.toFixed(0)}%)`;
    } else text += ` ${unit}`;
    text += `, ${rate(perSecond)} ${unit}/s`;
    if (total !== undefined && perSecond > 0 && this.done < total) text += `, ETA ${duration((total - this.done) / perSecond)}`;
    if (this.detail) text += `, ${this.detail}`;
    return text;
  }

  private draw(text: string): void {
    if (this.tty) {
      this.stream.write(`\r${text}\x1b[K`);
      this.drawnOnTty = true;
    } else this.stream.write(`${text}\n`);
  }
}

const count = (n: number) => n.toLocaleString("en-US");

function rate(perSecond: number): string {
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)}M`;
  if (perSecond >= 1e4) return `${(perSecond / 1e3).toFixed(0)}k`;
  return perSecond.toFixed(perSecond >= 100 ? 0 : 1);
}

/** 42s, 3m05s, 2h07m. */
export function duration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${Math.max(seconds, 0).toFixed(seconds < 10 ? 1 : 0)}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}m`;
}
