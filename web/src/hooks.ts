import { keepPreviousData, QueryClient, useQuery } from "@tanstack/preact-query";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { connection, ServerUnreachable } from "./api.ts";
import { backoffDelay } from "./lib/retry.ts";

/**
 * The UI's server state, in one place: TanStack Query (docs/decisions.md, "Web UI: server state")
 * caches each answer by its key, so a view opened again shows what it had at once and refreshes
 * it; a later answer wins over an earlier one; what was loaded stays while a reload fails (a view
 * never blanks what it has drawn). A server that cannot be reached is retried with backoff
 * (lib/retry.ts) and no error is shown (the shell's "reconnecting…" notice says it, ConnectionNotice
 * in components/common.tsx); any other error is shown, not retried.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (_failures, error) => error instanceof ServerUnreachable,
      retryDelay: (attempt) => backoffDelay(attempt - 1),
      // A view shows the previous inputs' answer until the new one comes (a table paged, a metric chosen).
      placeholderData: keepPreviousData,
      refetchOnWindowFocus: false,
    },
  },
});

export interface Async<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * What `load` answers, cached under `key`: a name for what is loaded, then every input `load`
 * reads (as useEffect's dependencies; two loads with the same key share one answer). `every`
 * (or `every(answer)`, for a load whose own answer says whether it must be followed)
 * reloads it that often (ms) while the page is shown and the server reachable; `enabled: false`
 * loads nothing.
 */
export function useServerState<T>(
  key: readonly [name: string, ...inputs: unknown[]],
  load: () => Promise<T>,
  options: { every?: number | false | ((data: T | undefined) => number | false); enabled?: boolean } = {},
): Async<T> {
  const query = useQuery({
    queryKey: key,
    queryFn: load,
    enabled: options.enabled ?? true,
    refetchInterval: (query) => {
      const every = typeof options.every === "function" ? options.every(query.state.data) : options.every;
      return every && connection.reachable ? every : false;
    },
  });
  const { refetch } = query;
  const reload = useCallback(() => void refetch(), [refetch]);
  return {
    data: query.data,
    // A failed reload keeps the data; the error is shown beside it (an unreachable server is not an error: see above).
    error: query.error && !(query.error instanceof ServerUnreachable) ? query.error.message : undefined,
    loading: query.isFetching,
    reload,
  };
}

/** Whether the server answered the last request (false while "reconnecting…"). */
export function useServerReachable(): boolean {
  const [reachable, setReachable] = useState(connection.reachable);
  useEffect(() => connection.subscribe(setReachable), []);
  return reachable;
}

/**
 * Calls back every `milliseconds` while `active` (live RUNNING runs, the runs table while runs run),
 * and while the page is shown: ticks pause in a hidden tab and while the server is unreachable
 * (the failed loads retry with backoff meanwhile, and ticks resume once one succeeds).
 */
export function useInterval(callback: () => void, milliseconds: number, active: boolean): void {
  const latest = useRef(callback);
  latest.current = callback;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (connection.reachable && document.visibilityState !== "hidden") latest.current();
    }, milliseconds);
    return () => clearInterval(timer);
  }, [milliseconds, active]);
}

/** `observe(element, key)` watches an element; the function it returns stops (the key is then reported off screen). */
export type Observe = (element: Element, key: string) => () => void;

/**
 * Tells which of many elements are on screen (within `rootMargin` of the window), with one
 * IntersectionObserver for all of them: elements that come on screen together, as a page's first
 * charts do, are reported in one call, so what they show is asked for in one request (an observer
 * each reports them one by one, and each report would start its own).
 */
export function useOnScreen(rootMargin: string, onChange: (shown: ReadonlyMap<string, boolean>) => void): Observe {
  const latest = useRef(onChange);
  latest.current = onChange;
  const keys = useRef(new Map<Element, string>());
  const observer = useRef<IntersectionObserver>(undefined);
  useEffect(() => () => observer.current?.disconnect(), []);
  return useCallback((element: Element, key: string) => {
    observer.current ??= new IntersectionObserver(
      (entries) => {
        // One element may come and go within a call: its last entry is its state.
        const shown = new Map<string, boolean>();
        for (const entry of entries) {
          const entryKey = keys.current.get(entry.target);
          if (entryKey !== undefined) shown.set(entryKey, entry.isIntersecting);
        }
        if (shown.size > 0) latest.current(shown);
      },
      { rootMargin },
    );
    keys.current.set(element, key);
    observer.current.observe(element);
    return () => {
      observer.current?.unobserve(element);
      keys.current.delete(element);
      latest.current(new Map([[key, false]]));
    };
  }, []);
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

/** Whether a CSS media query matches now, following its changes (a window resized across a breakpoint). */
export function useMediaQuery(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const follow = () => setMatches(list.matches);
    follow();
    list.addEventListener("change", follow);
    return () => list.removeEventListener("change", follow);
  }, [query]);
  return matches;
}

/**
 * A change a view sends (a form's submit, a button's action): busy while it runs, its error shown
 * where it was asked for in the server's words, and the reads of `reload` (query keys) read again.
 */
export function useAction(): {
  run: (work: () => Promise<unknown>, reload?: readonly (readonly unknown[])[]) => Promise<boolean>;
  error: string | undefined;
  busy: boolean;
  clearError: () => void;
} {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<unknown>, reload: readonly (readonly unknown[])[] = []) => {
    setError(undefined);
    setBusy(true);
    try {
      await work();
      return true;
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
      return false;
    } finally {
      setBusy(false);
      for (const queryKey of reload) void queryClient.invalidateQueries({ queryKey });
    }
  };
  return { run, error, busy, clearError: () => setError(undefined) };
}
