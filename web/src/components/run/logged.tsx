// The run page's tabs for what is logged besides metrics: one card per log name of the tab's kind
// (Histograms, Tables, Text, Media, Other logs), each read on its own and bounded (logged/feed.ts).

import type { RunRef } from "../../api.ts";
import { kindOf, type LOGGED_TABS } from "../../lib/logged-types.ts";
import type { RunDetails } from "../../types.ts";
import { RUN_PAGE_BOUNDS } from "../logged/feed.ts";
import { LoggedEntries } from "../logged/logged-card.tsx";

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
