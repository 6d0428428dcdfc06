// "Group by": the config keys (or tags) that fold the workspace's runs into groups, and how a
// group's line and band are drawn (lib/grouping.ts). The keys offered are those of the selection's
// runs, the ones that differ between them first: a sweep's hyperparameters (the sweep read's split).

import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { useServerState } from "../../hooks.ts";
import { type Grouping, TAGS_KEY } from "../../lib/grouping.ts";
import type { Selection } from "../../lib/workspace.ts";

/** The selection's config keys (of its first 200 runs), those that differ between its runs first: the sweep read splits them. */
async function loadKeys(projectName: string, selection: Selection): Promise<{ differing: string[]; same: string[] }> {
  const sweep = await api.sweep({ projectName, ...selection, limit: 200 });
  return { differing: sweep.keys, same: sweep.constantKeys };
}

export function GroupingControl({
  projectName,
  selection,
  grouping,
  onChange,
}: {
  projectName: string;
  selection: Selection;
  grouping: Grouping;
  onChange: (grouping: Grouping) => void;
}) {
  const [open, setOpen] = useState(false);
  const keys = useServerState(
    ["groupingKeys", projectName, selection.search, selection.tags, selection.status, selection.filter],
    () => loadKeys(projectName, selection),
    { enabled: open },
  );
  const toggle = (key: string, on: boolean) =>
    onChange({ ...grouping, keys: on ? [...grouping.keys, key] : grouping.keys.filter((other) => other !== key) });
  const choice = (key: string, label: string) => (
    <label key={key}>
      <input type="checkbox" checked={grouping.keys.includes(key)} onChange={(event) => toggle(key, event.currentTarget.checked)} />
      {label}
    </label>
  );
  // Keys chosen earlier stay listed (and can be unticked) even when this selection's runs lack them.
  const listed = new Set([...(keys.data?.differing ?? []), ...(keys.data?.same ?? [])].map((key) => `config.${key}`));
  const stale = grouping.keys.filter((key) => key !== TAGS_KEY && !listed.has(key));
  return (
    <details class="grouping" open={open} onToggle={(event) => setOpen(event.currentTarget.open)} data-testid="grouping">
      <summary>
        Group by{" "}
        {grouping.keys.length > 0
          ? grouping.keys.map((key) => (key === TAGS_KEY ? "tags" : key.slice("config.".length))).join(", ")
          : "nothing"}
      </summary>
      <div class="grouping-body">
        <fieldset>
          <legend>Keys</legend>
          {choice(TAGS_KEY, "tags")}
          {stale.map((key) => choice(key, key.slice("config.".length)))}
          {keys.loading && <p class="muted">Loading keys…</p>}
          {(keys.data?.differing ?? []).map((key) => choice(`config.${key}`, key))}
          {(keys.data?.same.length ?? 0) > 0 && <p class="muted">The same in every run:</p>}
          {(keys.data?.same ?? []).map((key) => choice(`config.${key}`, key))}
        </fieldset>
        <label>
          line{" "}
          <select
            value={grouping.line}
            data-testid="group-line"
            onChange={(event) => onChange({ ...grouping, line: event.currentTarget.value === "median" ? "median" : "mean" })}
          >
            <option value="mean">mean</option>
            <option value="median">median</option>
          </select>
        </label>
        <label>
          band{" "}
          <select
            value={grouping.band}
            data-testid="group-band"
            onChange={(event) => onChange({ ...grouping, band: event.currentTarget.value === "std" ? "std" : "minmax" })}
          >
            <option value="minmax">min–max</option>
            <option value="std">±1 std</option>
          </select>
        </label>
        {grouping.keys.length > 0 && (
          <button type="button" class="link" onClick={() => onChange({ ...grouping, keys: [] })}>
            ungroup
          </button>
        )}
      </div>
    </details>
  );
}
