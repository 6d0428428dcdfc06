// The run page's tabs for what is logged besides metrics: one card per log name of the tab's kind
// (Histograms, Tables, Text, Media, Other logs), each read on its own and bounded (logged/feed.ts).

import type { RunRef } from "../../api.ts";
import { kindOf, type LoggedKind } from "../../lib/logged-types.ts";
import type { RunDetails } from "../../types.ts";
import { RUN_PAGE_BOUNDS } from "../logged/feed.ts";
import { LoggedEntries } from "../logged/logged-card.tsx";

/** The tabs, in the order shown after Logs; a tab is shown when the run has a name of its kinds. */
export const LOGGED_TABS: readonly { id: string; label: string; kinds: readonly LoggedKind[] }[] = [
  { id: "histograms", label: "Histograms", kinds: ["histogram"] },
  { id: "tables", label: "Tables", kinds: ["table"] },
  { id: "text", label: "Text", kinds: ["text"] },
  { id: "media", label: "Media", kinds: ["media"] },
  { id: "other-logs", label: "Other logs", kinds: ["file", "other"] },
];

export function loggedTabsOf(logNames: RunDetails["logNames"]) {
  const kinds = new Set(logNames.map((entry) => kindOf(entry.logType)));
  return LOGGED_TABS.filter((tab) => tab.kinds.some((kind) => kinds.has(kind)));
}

export function RunLogged({ run, logNames, tab }: { run: RunRef; logNames: RunDetails["logNames"]; tab: (typeof LOGGED_TABS)[number] }) {
  const names = logNames.filter((entry) => tab.kinds.includes(kindOf(entry.logType))).sort((a, b) => a.logName.localeCompare(b.logName));
  return (
    <div class="logged-grid" data-testid={`logged-${tab.id}`}>
      {names.map((entry) => (
        <section key={entry.logName} class="logged-card" data-log-name={entry.logName}>
          <h3 class="logged-title" title={entry.logName}>
            {entry.logName} <span class="muted">{entry.logType}</span>
          </h3>
          <LoggedEntries run={run} logName={entry.logName} kind={kindOf(entry.logType)} bounds={RUN_PAGE_BOUNDS} />
        </section>
      ))}
    </div>
  );
}
