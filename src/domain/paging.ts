/**
 * Paging of reads that return stored text of any size (console lines, data rows): a page ends at
 * `limit` rows or before the row that would take it past `maxBytes` of text, whichever comes first,
 * and always holds at least one row, so every row that was accepted can be read back
 * (docs/api.md, "Paging by size").
 */

/**
 * The text budget of one page. Reading, serializing and encoding a page costs about 5 ms per MiB
 * of text on one core (docs/benchmarks.md), so 8 MiB keeps a request's work on the event loop
 * near 50 ms, and the 4 MiB NDJSON line limit means a full page still holds two rows of the largest size.
 */
export const READ_PAGE_BYTES = 8 * 1024 * 1024;

export interface PageRequest {
  limit: number;
  offset: number;
  /** The budget in UTF-8 bytes of the rows' stored text (a console line's message, a data row's data). */
  maxBytes: number;
}

export interface Page<T> {
  items: T[];
  /** The offset of the next page; null when this page holds the last row. */
  nextOffset: number | null;
}

/**
 * Takes one page from rows that start at `request.offset`. Give it up to `limit + 1` rows: the
 * extra one only tells whether a next page exists. Stops reading as soon as the page is full, so a
 * lazy iterator never loads more than one row past the page.
 */
export function takePage<T>(rows: Iterable<T>, request: PageRequest, sizeOf: (row: T) => number): Page<T> {
  const items: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = sizeOf(row);
    if (items.length === request.limit || (items.length > 0 && bytes + size > request.maxBytes)) {
      return { items, nextOffset: request.offset + items.length };
    }
    items.push(row);
    bytes += size;
  }
  return { items, nextOffset: null };
}
