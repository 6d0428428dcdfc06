// Config or metadata as a collapsible tree with a search that keeps only matching branches.

import { useState } from "preact/hooks";
import { formatValue } from "../lib/format.ts";
import { isPlainObject } from "../../../src/domain/shared-with-ui.ts";
import { treeMatches } from "../lib/tree.ts";

/**
 * Levels drawn before a branch is cut short: the server refuses JSON nested deeper than 64 levels
 * (docs/api.md, "Limits on every request"), but values stored before that limit may nest thousands deep, and each
 * level is a component on the stack.
 */
const MAX_DRAWN_DEPTH = 64;

function Branch({ name, value, search, depth }: { name: string; value: unknown; search: string; depth: number }) {
  if (!treeMatches(name, value, search)) return null;
  if (depth >= MAX_DRAWN_DEPTH) {
    return (
      <li>
        <span class="key">{name}</span>: <span class="muted">nested deeper than {MAX_DRAWN_DEPTH} levels, not shown</span>
      </li>
    );
  }
  if (isPlainObject(value) || Array.isArray(value)) {
    const entries = Object.entries(value);
    // Under a key that matches itself, everything is shown.
    const childSearch = search !== "" && name.toLowerCase().includes(search.toLowerCase()) ? "" : search;
    return (
      <li>
        <details open={depth < 2 || search !== ""}>
          <summary>
            <span class="key">{name}</span>{" "}
            <span class="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
          </summary>
          <ul>
            {entries.map(([key, child]) => (
              <Branch key={key} name={key} value={child} search={childSearch} depth={depth + 1} />
            ))}
          </ul>
        </details>
      </li>
    );
  }
  return (
    <li>
      <span class="key">{name}</span>: <span class="value">{formatValue(value)}</span>
    </li>
  );
}

export function JsonTree({ title, value }: { title: string; value: unknown }) {
  const [search, setSearch] = useState("");
  const entries = isPlainObject(value) || Array.isArray(value) ? Object.entries(value) : [];
  return (
    <section class="json-tree" aria-label={title}>
      <h2>{title}</h2>
      {value === null || value === undefined ? (
        <p class="muted">None.</p>
      ) : (
        <>
          <input
            type="search"
            placeholder={`Search ${title.toLowerCase()}`}
            aria-label={`Search ${title.toLowerCase()}`}
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
          <ul class="tree">
            {entries.length === 0 ? (
              <li>{formatValue(value)}</li>
            ) : (
              entries.map(([key, child]) => <Branch key={key} name={key} value={child} search={search} depth={0} />)
            )}
          </ul>
        </>
      )}
    </section>
  );
}
