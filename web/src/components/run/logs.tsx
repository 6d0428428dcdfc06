// Console logs: type filter, paging, and a search that scans the whole log (the API has no text search).

import { useEffect, useRef, useState } from "preact/hooks";
import { CONSOLE_LOG_TYPES } from "../../../../src/domain/shared-with-ui.ts";
import { api, type RunRef } from "../../api.ts";
import { useLiveTick, useServerState } from "../../hooks.ts";
import { hasAnsi, parseAnsi, plainText, spanClasses } from "../../lib/ansi.ts";
import { formatDate } from "../../lib/format.ts";
import type { LogLine, LogsQuery } from "../../types.ts";
import { ErrorNote, Loading, Pager } from "../common.tsx";

const PAGE = 200;
const SCAN_PAGE = 10_000;

/** Every line of the given type whose shown text contains the text, read page by page; reports progress. */
async function scanLogs(
  run: RunRef,
  logType: LogsQuery["logType"],
  text: string,
  onProgress: (scanned: number, total: number) => void,
): Promise<LogLine[]> {
  const needle = text.toLowerCase();
  const matches: LogLine[] = [];
  // A page can end before SCAN_PAGE lines (the server also bounds a page's bytes): follow nextOffset.
  for (let offset: number | null = 0; offset !== null; ) {
    const page = await api.logs(run, { logType, limit: SCAN_PAGE, offset });
    // The text a line shows is searched: colour codes never split a match.
    matches.push(...page.logs.filter((line) => plainText(line.message).toLowerCase().includes(needle)));
    onProgress(page.nextOffset ?? page.total, page.total);
    offset = page.nextOffset;
  }
  return matches;
}

/** A message with its ANSI colours as styled spans: always text, never HTML (lib/ansi.ts). */
function Message({ text }: { text: string }) {
  if (!hasAnsi(text)) return <span class="message">{text}</span>;
  return (
    <span class="message">
      {parseAnsi(text).map((span, index) => {
        const { classes, color, background } = spanClasses(span);
        return classes || color || background ? (
          <span key={index} class={classes || undefined} style={color || background ? { color, background } : undefined}>
            {span.text}
          </span>
        ) : (
          span.text
        );
      })}
    </span>
  );
}

/** The offset of the last page of `total` lines. */
const lastPageOffset = (total: number) => Math.max(0, Math.floor((total - 1) / PAGE) * PAGE);

/**
 * `openAtEnd` (a FAILED run: its traceback is at the end) shows the last page first, scrolled to
 * its last line.
 */
export function RunLogs({ run, liveTick, openAtEnd = false }: { run: RunRef; liveTick: number; openAtEnd?: boolean }) {
  const [logType, setLogType] = useState<LogsQuery["logType"]>(undefined);
  const [search, setSearch] = useState("");
  const [searchText, setSearchText] = useState("");
  const [offset, setOffset] = useState(0);
  const [progress, setProgress] = useState("");
  const [followTail, setFollowTail] = useState(false);
  const [seekEnd, setSeekEnd] = useState(openAtEnd);
  const list = useRef<HTMLOListElement>(null);

  // Without a search the server pages; a search scans the log once and its matches are paged here.
  const lines = useServerState(["logs", run.runId, logType, offset], () => api.logs(run, { logType, limit: PAGE, offset }), {
    enabled: search === "",
  });
  const matches = useServerState(
    ["logSearch", run.runId, logType, search],
    () =>
      scanLogs(run, logType, search, (scanned, total) =>
        setProgress(`searched ${scanned.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} lines`),
      ),
    { enabled: search !== "" },
  );
  const page = search === "" ? lines : matches;
  const shown =
    search === "" ? lines.data : matches.data && { logs: matches.data.slice(offset, offset + PAGE), total: matches.data.length };

  // A FAILED run opens at its last line, once: the first page tells the total.
  useEffect(() => {
    if (!seekEnd || !lines.data || lines.loading) return;
    const end = lastPageOffset(lines.data.total);
    if (offset !== end) setOffset(end);
    else {
      setSeekEnd(false);
      list.current?.lastElementChild?.scrollIntoView({ block: "end" });
    }
  }, [seekEnd, lines.data, lines.loading, offset]);

  // Live: the last page is fetched again so new lines show up; when following, move to the newest page.
  useLiveTick(liveTick, () => {
    if (search !== "" || !lines.data) return;
    const end = lastPageOffset(lines.data.total);
    if (followTail && offset < end) setOffset(end);
    else if (offset >= end) lines.reload();
  });

  return (
    <div>
      <form
        class="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setOffset(0);
          setProgress("");
          setSearch(searchText);
        }}
      >
        <label>
          Type
          <select
            value={logType ?? ""}
            onChange={(event) => {
              setOffset(0);
              const chosen = event.currentTarget.value;
              setLogType(CONSOLE_LOG_TYPES.find((type) => type === chosen));
            }}
          >
            <option value="">all</option>
            {CONSOLE_LOG_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input
            type="search"
            placeholder="text in the message"
            value={searchText}
            onInput={(event) => setSearchText(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Search</button>
        <label>
          <input type="checkbox" checked={followTail} onChange={(event) => setFollowTail(event.currentTarget.checked)} />
          follow new lines
        </label>
        {search !== "" && <span class="muted">{progress}</span>}
      </form>
      <ErrorNote error={page.error} />
      {!shown && page.loading && <Loading what="logs" />}
      {shown && (
        <>
          {shown.total === 0 && <p class="muted">No log lines{search ? " match" : ""}.</p>}
          <ol class="log-lines" data-testid="log-lines" ref={list}>
            {shown.logs.map((line) => (
              // Two processes of one run can both write line 1: a line is (logType, lineNumber, time).
              <li key={`${line.time} ${line.lineNumber} ${line.logType}`} class={`log-${line.logType.toLowerCase()}`}>
                <span class="muted log-number">{line.lineNumber}</span>
                <span class="log-type">{line.logType}</span>
                <time class="muted log-time" dateTime={line.time}>
                  {formatDate(line.time)}
                </time>
                <Message text={line.message} />
              </li>
            ))}
          </ol>
          <Pager offset={offset} limit={PAGE} shown={shown.logs.length} total={shown.total} label="lines" onOffset={setOffset} />
        </>
      )}
    </div>
  );
}
