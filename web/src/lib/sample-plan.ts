// Which rows of a long data series to read after its first ones (components/logged/feed.ts): a
// number of chunks spread from the end of what was read to the last row, as many and as long as
// the bounds and the byte budget allow (a row can be 4 MiB: 20 chunks of 25 such rows would be 2 GB).

export interface ReadBounds {
  /** Rows read first, from the start. */
  head: number;
  /** Chunks read past the head, the last ending at the last row; 1: the last `chunkRows` rows alone. */
  chunks: number;
  chunkRows: number;
  /** Text read in all (the head stops at half of it): a series of large rows gets fewer, shorter chunks. */
  maxBytes: number;
}

/**
 * The chunks to read, as [offset, rows], given the series' `total` rows and the `headRows` rows
 * (`headBytes` of text) read first. A single chunk (`chunks: 1`) is the last rows, whatever they
 * overlap; otherwise chunks never reach back into the head, a rest that fits is read whole, and a
 * tight budget makes chunks shorter before it makes them fewer (a heatmap needs steps spread).
 */
export function samplePlan(total: number, headRows: number, headBytes: number, bounds: ReadBounds): [offset: number, rows: number][] {
  const average = headRows > 0 ? Math.max(1, headBytes / headRows) : 1;
  const budgetRows = Math.max(1, Math.floor(Math.max(0, bounds.maxBytes - headBytes) / average));
  if (bounds.chunks === 1) {
    const rows = Math.max(1, Math.min(bounds.chunkRows, budgetRows, total));
    return [[total - rows, rows]];
  }
  const rest = total - headRows;
  if (rest <= 0) return [];
  if (rest <= Math.min(bounds.chunks * bounds.chunkRows, budgetRows)) return [[headRows, rest]];
  const chunks = Math.max(1, Math.min(bounds.chunks, budgetRows, rest));
  const rows = Math.max(1, Math.min(bounds.chunkRows, Math.floor(budgetRows / chunks), Math.floor(rest / chunks)));
  if (chunks === 1) return [[total - rows, rows]];
  const last = total - rows;
  return Array.from({ length: chunks }, (_, i) => [headRows + Math.round((i * (last - headRows)) / (chunks - 1)), rows]);
}
