import type { ConsoleLogType } from "../../domain/console-logs.js";
import type { Page, PageRequest } from "../../domain/paging.js";
import { type ConsoleLineKey, type ConsoleLineRow, toConsoleLine } from "../rows.js";
import type { ConsoleLine, ConsoleLineQuery } from "../store.js";
import { performer, type Workflow } from "../workflow.js";

/** What reading a run's console lines asks of a backend; `logType` undefined means every type. */
export interface RunReadOperations {
  runProjectId(orgId: string, runId: number): number | undefined;
  consoleLineTotal(runId: number, logType: ConsoleLogType | undefined): number;
  /** The key of the line `skip` lines from the start of the read order, or from its end when `fromEnd`. */
  consoleLineKey(runId: number, logType: ConsoleLogType | undefined, skip: number, fromEnd: boolean): ConsoleLineKey;
  /** One page (domain/paging.ts, measured by messages) of lines from `first` on, in read order. */
  consoleLinePage(runId: number, logType: ConsoleLogType | undefined, first: ConsoleLineKey, page: PageRequest): Page<ConsoleLineRow>;
}

const perform = performer<RunReadOperations>();

/**
 * Store.listConsoleLines: a page by offset without reading the lines before it. The line at the
 * offset is found by walking the index from the nearer end (the count is known), then the page is
 * read from that line on.
 */
export function* listConsoleLines(
  orgId: string,
  runId: number,
  query: ConsoleLineQuery,
): Workflow<Page<ConsoleLine> & { total: number }, RunReadOperations> {
  if ((yield* perform("runProjectId", orgId, runId)) === undefined) return { items: [], nextOffset: null, total: 0 };
  const total = yield* perform("consoleLineTotal", runId, query.logType);
  if (query.offset >= total) return { items: [], nextOffset: null, total };
  const fromEnd = query.offset > (total - 1) / 2;
  const first = yield* perform("consoleLineKey", runId, query.logType, fromEnd ? total - 1 - query.offset : query.offset, fromEnd);
  const page = yield* perform("consoleLinePage", runId, query.logType, first, query);
  return { items: page.items.map(toConsoleLine), nextOffset: page.nextOffset, total };
}

/** The size a console line counts for in a page: its message's bytes. */
export const consoleLineSize = (row: ConsoleLineRow): number => Buffer.byteLength(row.message, "utf8");
