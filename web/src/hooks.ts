import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Async<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Loads data for the current inputs; a later load wins over an earlier one still in flight. */
export function useAsync<T>(load: () => Promise<T>, inputs: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error: Error) => mine === generation.current && setState({ error: error.message, loading: false }),
    );
    // The caller names what the load depends on, as with useEffect.
  }, inputs);
  useEffect(() => {
    run();
    return () => void generation.current++;
  }, [run]);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}

/** Calls back every `milliseconds` while `active`; used for live RUNNING runs. */
export function useInterval(callback: () => void, milliseconds: number, active: boolean): void {
  const latest = useRef(callback);
  latest.current = callback;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => latest.current(), milliseconds);
    return () => clearInterval(timer);
  }, [milliseconds, active]);
}

/** Calls back on each live tick (a RUNNING run's page counts them up; 0 is the first load). */
export function useLiveTick(tick: number, callback: () => void): void {
  const latest = useRef(callback);
  latest.current = callback;
  useEffect(() => {
    if (tick > 0) latest.current();
  }, [tick]);
}

/** A value kept in localStorage under `key` (per browser), e.g. the chosen table columns. */
export function useStoredState<T>(key: string, initial: T): [T, (value: T) => void] {
  const read = () => {
    try {
      const text = localStorage.getItem(key);
      return text === null ? initial : (JSON.parse(text) as T);
    } catch {
      return initial;
    }
  };
  const [value, setValue] = useState<T>(read);
  useEffect(() => setValue(read()), [key]); // another key (another project) has its own value
  const store = useCallback(
    (next: T) => {
      localStorage.setItem(key, JSON.stringify(next));
      setValue(next);
    },
    [key],
  );
  return [value, store];
}
