// Config or metadata as a collapsible tree with a search that keeps only matching branches.

import { useState } from "preact/hooks";
import { formatValue } from "../lib/format.ts";
import { isPlainObject, treeMatches } from "../lib/tree.ts";

function Branch({ name, value, search, depth }: { name: string; value: unknown; search: string; depth: number }) {
  if (!treeMatches(name, value, search)) return null;
  if (isPlainObject(value) || Array.isArray(value)) {
    const entries = Object.entries(value);
    // Under a key that matches itself, everything is shown.
    const childSearch = search !== "" && name.toLowerCase().includes(search.toLowerCase()) ? "" : search;
    return (
      <li>
        <details open={depth < 2 || search !== ""}>
          <summary>
            <span class="key">{name}</span> <span class="muted">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
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
          <input type="search" placeholder={`Search ${title.toLowerCase()}`} aria-label={`Search ${title.toLowerCase()}`} value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
          <ul class="tree">
            {entries.length === 0 ? <li>{formatValue(value)}</li> : entries.map(([key, child]) => <Branch key={key} name={key} value={child} search={search} depth={0} />)}
          </ul>
        </>
      )}
    </section>
  );
}
