// Which view shows a log name of a given type (docs/decisions.md, "Web UI: every logged type has a
// view"), and which files are media or text. Log types are the run's `logNames` (the server lists a
// data row's name by its data type and a file's by its file type, src/domain/log-names.ts and files.ts).

/** The views: metric charts, histograms, tables, text by step, media by step, files, and a listing for the rest. */
export type LoggedKind = "metric" | "histogram" | "table" | "text" | "media" | "file" | "other";

const KINDS = new Map<string, LoggedKind>([
  ["METRIC", "metric"],
  ["HISTOGRAM", "histogram"],
  ["TABLE", "table"],
  // A TEXT name is a string series (data rows) or text files; a DATA name is what other clients
  // send as data rows (pluto-ml registers its string series as DATA): both are read as text by step.
  ["TEXT", "text"],
  ["DATA", "text"],
  ["IMAGE", "media"],
  ["AUDIO", "media"],
  ["VIDEO", "media"],
  ["FILE", "file"],
  ["ARTIFACT", "file"],
]);

/** The view of a log type (any case); a type no view knows is "other" (listed, never hidden). */
export const kindOf = (logType: string): LoggedKind => KINDS.get(logType.toUpperCase()) ?? "other";

/** Data types whose rows are plain text (a string series): shown as they are. */
const TEXT_DATA_TYPES = new Set(["TEXT", "STRING", "STRING-SERIES"]);
export const isTextData = (dataType: string) => TEXT_DATA_TYPES.has(dataType.toUpperCase());

const IMAGE = /\.(png|jpe?g|gif|webp|svg|bmp|avif)$/i;
const AUDIO = /\.(wav|mp3|flac|ogg|m4a|aac|opus)$/i;
const VIDEO = /\.(mp4|webm|mov|mkv|ogv)$/i;
const TEXT = /\.(txt|log|md|csv|tsv|json|jsonl|yaml|yml|py|sh|cfg|ini|toml)$/i;

/** How a file is previewed: by its declared type first (`image/png`, or pluto-ml's bare `png`), then its name. */
export function previewOf(file: { fileType: string; fileName: string }): "image" | "audio" | "video" | "text" | undefined {
  const type = file.fileType.toLowerCase().replace(/^\./, "");
  const major = type.includes("/") ? type.split("/", 1)[0] : undefined;
  const extension = `.${type.includes("/") ? "" : type}`;
  if (major === "image" || IMAGE.test(extension) || IMAGE.test(file.fileName)) return "image";
  if (major === "audio" || AUDIO.test(extension) || AUDIO.test(file.fileName)) return "audio";
  if (major === "video" || VIDEO.test(extension) || VIDEO.test(file.fileName)) return "video";
  if (major === "text" || type === "application/json" || TEXT.test(extension) || TEXT.test(file.fileName)) return "text";
  return undefined;
}

/** The distinct steps of some entries, in order. */
export const stepsOf = (entries: readonly { step: number }[]): number[] =>
  [...new Set(entries.map((entry) => entry.step))].sort((a, b) => a - b);

/** The index of the last of `steps` at or before `step` (undefined when none is): a step picked across runs shows each run's latest entry by then. */
export function atOrBefore(steps: readonly number[], step: number): number | undefined {
  let found: number | undefined;
  for (let i = 0; i < steps.length && steps[i]! <= step; i++) found = i;
  return found;
}

/** The tabs, in the order shown after Logs; a tab is shown when the run has a name of its kinds. */
export const LOGGED_TABS: readonly { id: string; label: string; kinds: readonly LoggedKind[] }[] = [
  { id: "histograms", label: "Histograms", kinds: ["histogram"] },
  { id: "tables", label: "Tables", kinds: ["table"] },
  { id: "text", label: "Text", kinds: ["text"] },
  { id: "media", label: "Media", kinds: ["media"] },
  { id: "other-logs", label: "Other logs", kinds: ["file", "other"] },
];

export function loggedTabsOf(logNames: readonly { logType: string }[]) {
  const kinds = new Set(logNames.map((entry) => kindOf(entry.logType)));
  return LOGGED_TABS.filter((tab) => tab.kinds.some((kind) => kinds.has(kind)));
}
