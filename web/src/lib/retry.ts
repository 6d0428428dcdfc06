// Pure pieces of the UI's server state: how long to wait before retrying an unreachable server,
// and how to split a list of metric names into requests a URL can hold.

/** First retry after 1 s, doubling up to 15 s: a restart is noticed quickly, an outage is not hammered. */
export function backoffDelay(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt), 15_000);
}

/**
 * Names split into lists of at most `maxNames` whose URL-encoded total stays under `maxChars`
 * (a server bounds a request line; Node's default is 16 KiB of headers), keeping their order;
 * a name longer than the budget on its own still gets a list.
 */
export function batchNames(names: readonly string[], maxNames: number, maxChars = 6000): string[][] {
  const batches: string[][] = [];
  let current: string[] = [];
  let chars = 0;
  for (const name of names) {
    const size = encodeURIComponent(name).length + "&logNames=".length;
    if (current.length > 0 && (current.length >= maxNames || chars + size > maxChars)) {
      batches.push(current);
      current = [];
      chars = 0;
    }
    current.push(name);
    chars += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
