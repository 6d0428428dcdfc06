// Workspace state kept in this browser (localStorage), shared by every component of the page that
// reads it: the runs table's eye toggles and the workspace panels see the same hidden runs at once.
// Keys (per project): `stepwise.workspace.<project>` (layout: added panels, panel options,
// collapsed sections, run cap; lib/workspace.ts), `stepwise.hiddenRuns.<project>` (run IDs) and
// `stepwise.runColors.<project>` (colours picked for runs; lib/run-color.ts) and
// `stepwise.columns.<project>` (the runs table's chosen columns; lib/run-columns.ts). A saved view
// (components/saved-views.tsx) writes the layout, hidden runs and columns when it is opened.

import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { parsePickedColors, pickedColorsStorageKey } from "../../lib/run-color.ts";
import { type Column, columnsStorageKey, parseColumnsText } from "../../lib/run-columns.ts";
import { hiddenRunsStorageKey, type Layout, layoutStorageKey, parseHiddenRuns, parseLayout } from "../../lib/workspace.ts";

/** Listeners by storage key: a write tells the page's other readers of the same key. */
const listeners = new Map<string, Set<() => void>>();

function useStored<T>(key: string, parse: (text: string | null) => T): [T, (next: T) => void] {
  const text = () => {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  };
  // The text the value was parsed from: reading the same text again keeps the same value (no render).
  const readText = useRef<string | null>(null);
  const read = useCallback((): T => {
    readText.current = text();
    return parse(readText.current);
  }, [key]);
  const [value, setValue] = useState<T>(read);
  // This reader's listener: a write by this reader does not re-read (its value stays the same object).
  const own = useRef<() => void>(() => undefined);
  useEffect(() => {
    const listener = () => text() !== readText.current && setValue(read());
    listener(); // written, or another key, between the first render and now
    own.current = listener;
    const set = listeners.get(key) ?? new Set();
    set.add(listener);
    listeners.set(key, set);
    // Another tab of the same project writes too.
    const onStorage = (event: StorageEvent) => event.key === key && listener();
    addEventListener("storage", onStorage);
    return () => {
      set.delete(listener);
      removeEventListener("storage", onStorage);
    };
  }, [key]);
  const store = useCallback(
    (next: T) => {
      readText.current = JSON.stringify(next);
      try {
        localStorage.setItem(key, readText.current);
      } catch {
        // Storage full or denied: the change holds for this page only.
      }
      setValue(next);
      for (const listener of listeners.get(key) ?? []) if (listener !== own.current) listener();
    },
    [key],
  );
  return [value, store];
}

export function useLayout(projectName: string): [Layout, (layout: Layout) => void] {
  return useStored(layoutStorageKey(projectName), parseLayout);
}

export function useHiddenRuns(projectName: string) {
  const [hidden, setHidden] = useStored(hiddenRunsStorageKey(projectName), parseHiddenRuns);
  const set = useMemo(() => new Set(hidden), [hidden]);
  const toggle = (runId: number) => setHidden(hidden.includes(runId) ? hidden.filter((id) => id !== runId) : [...hidden, runId]);
  return { hidden: set, toggle, showAll: () => setHidden([]), replace: setHidden };
}

/** The runs table's chosen columns; null while none were chosen (the table shows its defaults). */
export function useColumns(projectName: string): [Column[] | null, (columns: Column[] | null) => void] {
  return useStored(columnsStorageKey(projectName), parseColumnsText);
}

/** Colours picked for runs of the project (the swatch in the runs table): kept in this browser. */
export function usePickedColors(projectName: string) {
  // Stored as pairs (JSON has no maps); read as a map.
  const [pairs, setPairs] = useStored(pickedColorsStorageKey(projectName), (text) => [...parsePickedColors(text)]);
  const picked = useMemo(() => new Map(pairs), [pairs]);
  const pick = (runId: number, color: string) => setPairs([...new Map(picked).set(runId, color)]);
  return { picked, pick };
}
