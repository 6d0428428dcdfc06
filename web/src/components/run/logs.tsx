// Console logs: type filter, paging, and a search that scans the whole log (the API has no text search).

import { useState } from "preact/hooks";
import { api, type RunRef } from "../../api.ts";
import { useAsync, useLiveTick } from "../../hooks.ts";
import { formatDate } from "../../lib/format.ts";
import type { LogLine } from "../../types.ts";
import { ErrorNote, Loading, Pager } from "../common.tsx";

const PAGE = 200;
const SCAN_PAGE = 10_000;
const LOG_TYPES = ["INFO", "ERROR", "WARNING", "DEBUG", "PRINT"];

/** Every line of the given type that contains the text, read page by page; reports progress. */
async function scanLogs(run: RunRef, logType: string, text: string, onProgress: (scanned: number, total: number) => void): Promise<LogLine[]> {
  const needle = text.toLowerCase();
  const matches: LogLine[] = [];
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const page = await api.logs(run, { logType, limit: SCAN_PAGE, offset });
    matches.push(...page.logs.filter((line) => line.message.toLowerCase().includes(needle)));
    onProgress(Math.min(offset + SCAN_PAGE, page.total), page.total);
    if (offset + SCAN_PAGE >= page.total) return matches;
  }
}

export function RunLogs({ run, liveTick }: { run: RunRef; liveTick: number }) {
  const [logType, setLogType] = useState("");
  const [search, setSearch] = useState("");
  const [searchText, setSearchText] = useState("");
  const [offset, setOffset] = useState(0);
  const [progress, setProgress] = useState("");
  const [followTail, setFollowTail] = useState(false);

  // Without a search the server pages; a search scans the log once and its matches are paged here.
  const lines = useAsync(() => (search === "" ? api.logs(run, { logType, limit: PAGE, offset }) : Promise.resolve(undefined)), [run.runId, logType, search, offset]);
  const matches = useAsync(
    () =>
      search === ""
        ? Promise.resolve(undefined)
        : scanLogs(run, logType, search, (scanned, total) => setProgress(`searched ${scanned.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} lines`)),
    [run.runId, logType, search],
  );
  const page = search === "" ? lines : matches;
  const shown = search === "" ? lines.data : matches.data && { logs: matches.data.slice(offset, offset + PAGE), total: matches.data.length };

  // Live: the last page is fetched again so new lines show up; when following, move to the newest page.
  useLiveTick(liveTick, () => {
    if (search !== "" || !lines.data) return;
    const lastPageOffset = Math.max(0, Math.floor((lines.data.total - 1) / PAGE) * PAGE);
    if (followTail && offset < lastPageOffset) setOffset(lastPageOffset);
    else if (offset >= lastPageOffset) lines.reload();
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
            value={logType}
            onChange={(event) => {
              setOffset(0);
              setLogType(event.currentTarget.value);
            }}
          >
            <option value="">all</option>
            {LOG_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input type="search" placeholder="text in the message" value={searchText} onInput={(event) => setSearchText(event.currentTarget.value)} />
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
          <ol class="log-lines" data-testid="log-lines">
            {shown.logs.map((line) => (
              <li key={line.lineNumber} class={`log-${line.logType.toLowerCase()}`}>
                <span class="muted mono">{line.lineNumber}</span>
                <span class="log-type">{line.logType}</span>
                <time class="muted" dateTime={line.time}>
                  {formatDate(line.time)}
                </time>
                <span class="message">{line.message}</span>
              </li>
            ))}
          </ol>
          <Pager offset={offset} limit={PAGE} total={shown.total} label="lines" onOffset={setOffset} />
        </>
      )}
    </div>
  );
}
