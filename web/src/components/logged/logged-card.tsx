// One log name of one run in the view of its kind (lib/logged-types.ts): histograms, tables, text
// by step, media by step; a name of another type shows what is stored under it (data rows as
// text, files previewed or linked), and a name with nothing stored says so.

import { api, type RunRef } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import type { LoggedKind } from "../../lib/logged-types.ts";
import type { FileRecord } from "../../types.ts";
import { ErrorNote, Loading } from "../common.tsx";
import { type ReadBounds, type RowRead, readRows } from "./feed.ts";
import { HistogramSeries } from "./histogram-view.tsx";
import { MediaSeries } from "./media.tsx";
import { TableSeries } from "./table-view.tsx";
import { TextSeries } from "./text-series.tsx";

const NO_ROWS: RowRead = { rows: [], total: 0, sampled: false };

/** What a name has stored: data rows (histograms, tables, text) and files (media, text files, other files). */
async function loadEntries(run: RunRef, logName: string, kind: LoggedKind, bounds: ReadBounds) {
  const wantsRows = kind !== "media";
  const wantsFiles = kind !== "histogram" && kind !== "table";
  const [rows, files] = await Promise.all([
    wantsRows ? readRows(run, logName, bounds) : NO_ROWS,
    wantsFiles ? api.files(run, logName).then((answer) => answer.files) : ([] as FileRecord[]),
  ]);
  return { rows, files };
}

export function LoggedEntries(props: { run: RunRef; logName: string; kind: LoggedKind; bounds: ReadBounds }) {
  const { run, logName, kind, bounds } = props;
  const entries = useServerState(["loggedEntries", run.runId, logName, kind, bounds], () => loadEntries(run, logName, kind, bounds));
  if (entries.error) return <ErrorNote error={entries.error} />;
  if (!entries.data) return <Loading what={logName} />;
  const { rows, files } = entries.data;
  if (rows.rows.length === 0 && files.length === 0)
    return (
      <p class="muted" data-testid="nothing-stored">
        The run names {logName}, but nothing is stored under it yet.
      </p>
    );
  return (
    <>
      {rows.rows.length > 0 && kind === "histogram" && <HistogramSeries logName={logName} {...rows} />}
      {rows.rows.length > 0 && kind === "table" && <TableSeries logName={logName} {...rows} />}
      {rows.rows.length > 0 && kind !== "histogram" && kind !== "table" && <TextSeries {...rows} />}
      {files.length > 0 && <MediaSeries logName={logName} files={files} />}
    </>
  );
}
