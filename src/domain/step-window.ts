/**
 * A window of steps `[from, to]` of a metric read, on both protocols: an absent end is open (0, or
 * the largest safe step); a start past the end is refused, in the words `refuse` gives.
 */
export function stepWindow(
  from: number | undefined,
  to: number | undefined,
  refuse: (from: number, to: number) => Error,
): [number, number] {
  const window: [number, number] = [from ?? 0, to ?? Number.MAX_SAFE_INTEGER];
  if (window[0] > window[1]) throw refuse(window[0], window[1]);
  return window;
}
