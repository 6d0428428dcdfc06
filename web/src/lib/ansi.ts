// ANSI colour codes in console logs (SGR, `ESC [ … m`) as styled text runs. Pure: the logs view renders
// each run as a <span> with classes, so a log line is always text, never HTML.

/** A piece of a line with one style: `fg`/`bg` are colour numbers 0–255 (0–7 normal, 8–15 bright). */
export interface AnsiSpan {
  text: string;
  fg?: number;
  bg?: number;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

type Style = Omit<AnsiSpan, "text">;

// ESC [ params final-byte: any CSI sequence. Only SGR (final `m`) changes the style; the others
// (cursor moves, erase line) are dropped. A lone ESC not starting a sequence is dropped too.
const ESCAPE = /\u001b\[([0-9;:?]*)([@-~])|\u001b/g;

/** Applies one SGR sequence's parameters to a style (unknown codes are ignored). */
function applySgr(style: Style, params: string): Style {
  const codes = params === "" ? [0] : params.split(/[;:]/).map((part) => (part === "" ? 0 : Number(part)));
  let next: Style = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) next = {};
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 22) {
      delete next.bold;
      delete next.dim;
    } else if (code === 23) delete next.italic;
    else if (code === 24) delete next.underline;
    else if (code >= 30 && code <= 37) next.fg = code - 30;
    else if (code === 39) delete next.fg;
    else if (code >= 40 && code <= 47) next.bg = code - 40;
    else if (code === 49) delete next.bg;
    else if (code >= 90 && code <= 97) next.fg = code - 90 + 8;
    else if (code >= 100 && code <= 107) next.bg = code - 100 + 8;
    else if ((code === 38 || code === 48) && codes[i + 1] === 5) {
      // 256 colours: 38;5;n (foreground) or 48;5;n (background).
      const colour = codes[i + 2];
      if (colour !== undefined && Number.isInteger(colour) && colour >= 0 && colour <= 255) {
        if (code === 38) next.fg = colour;
        else next.bg = colour;
      }
      i += 2;
    } else if ((code === 38 || code === 48) && codes[i + 1] === 2) {
      i += 4; // 24-bit colour: not shown, its parameters skipped
    }
  }
  return next;
}

/** Splits a line into styled spans; escape sequences never reach the text. Adjacent text of one style is one span. */
export function parseAnsi(line: string): AnsiSpan[] {
  const spans: AnsiSpan[] = [];
  let style: Style = {};
  let position = 0;
  const push = (text: string) => {
    if (text === "") return;
    const last = spans[spans.length - 1];
    if (last && sameStyle(last, style)) last.text += text;
    else spans.push({ text, ...style });
  };
  for (const match of line.matchAll(ESCAPE)) {
    push(line.slice(position, match.index));
    position = match.index + match[0].length;
    if (match[2] === "m") style = applySgr(style, match[1]!);
  }
  push(line.slice(position));
  return spans;
}

function sameStyle(a: Style, b: Style): boolean {
  return (
    a.fg === b.fg && a.bg === b.bg && !a.bold === !b.bold && !a.dim === !b.dim && !a.italic === !b.italic && !a.underline === !b.underline
  );
}

/** The text a line shows, without its escape sequences (what a log search matches). */
export function plainText(line: string): string {
  return hasAnsi(line) ? line.replace(ESCAPE, "") : line;
}

/** Whether a line holds an escape sequence at all (most do not: they render as plain text). */
export function hasAnsi(line: string): boolean {
  return line.includes("\u001b");
}

/**
 * The CSS classes of a span: `ansi-fg-N` / `ansi-bg-N` for the 16 basic colours (themed in
 * styles.css), `ansi-bold` etc.; 256-colour codes above 15 come back as an inline colour instead.
 */
export function spanClasses(span: AnsiSpan): { classes: string; color?: string; background?: string } {
  const classes: string[] = [];
  let color: string | undefined;
  let background: string | undefined;
  if (span.fg !== undefined) {
    if (span.fg < 16) classes.push(`ansi-fg-${span.fg}`);
    else color = xterm256(span.fg);
  }
  if (span.bg !== undefined) {
    if (span.bg < 16) classes.push(`ansi-bg-${span.bg}`);
    else background = xterm256(span.bg);
  }
  if (span.bold) classes.push("ansi-bold");
  if (span.dim) classes.push("ansi-dim");
  if (span.italic) classes.push("ansi-italic");
  if (span.underline) classes.push("ansi-underline");
  return { classes: classes.join(" "), ...(color && { color }), ...(background && { background }) };
}

/** The xterm colour of a 256-colour code 16–255: a 6×6×6 cube, then 24 greys. */
export function xterm256(code: number): string {
  if (code >= 232) {
    const level = 8 + (code - 232) * 10;
    return `rgb(${level}, ${level}, ${level})`;
  }
  const index = code - 16;
  const level = (n: number) => (n === 0 ? 0 : 55 + n * 40);
  return `rgb(${level(Math.floor(index / 36))}, ${level(Math.floor(index / 6) % 6)}, ${level(index % 6)})`;
}
