// Run colours and the highlighted run, shared by everything a page draws runs in: the runs table,
// every workspace panel with its legend, compare. A page that draws runs together provides their
// colours (RunColors, from lib/run-color.ts assignRunColors); without one, a run takes its own.
// The highlighted run is the one the pointer is on, in a table row, a legend or a chart line: every
// other run's lines fade in every chart of the page.

import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { runColor } from "../lib/run-color.ts";

export const RunColors = createContext<(runId: number) => string>((runId) => runColor(runId));

/** The colour of a run on this page. */
export const useRunColor = () => useContext(RunColors);

let highlighted: number | null = null;
const listeners = new Set<(runId: number | null) => void>();

/** Highlights a run in every chart of the page (null: none). */
export function highlightRun(runId: number | null): void {
  if (runId === highlighted) return;
  highlighted = runId;
  for (const listener of listeners) listener(runId);
}

/** The run the pointer is on, anywhere on the page. */
export function useHighlightedRun(): number | null {
  const [runId, setRunId] = useState(highlighted);
  useEffect(() => {
    listeners.add(setRunId);
    setRunId(highlighted);
    return () => {
      listeners.delete(setRunId);
    };
  }, []);
  return runId;
}
