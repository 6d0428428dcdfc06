// Rows of field / operator / value, composed into the run filter grammar; the JSON stays editable.

import { useEffect, useState } from "preact/hooks";
import { buildRunFilter, FIELD_HINTS, FILTER_OPERATORS, OPERATOR_LABELS, type FilterOperator, type FilterRow } from "../lib/run-filter.ts";

export function FilterBuilder({
  projectName,
  filter,
  onApply,
}: {
  projectName: string;
  filter: string;
  onApply: (filter: string) => void;
}) {
  const [rows, setRows] = useState<FilterRow[]>([{ field: "", operator: "$eq", value: "" }]);
  const [json, setJson] = useState(filter);
  useEffect(() => setJson(filter), [filter]);
  const update = (index: number, change: Partial<FilterRow>) => {
    const next = rows.map((row, i) => (i === index ? { ...row, ...change } : row));
    setRows(next);
    setJson(buildRunFilter(next));
  };
  const listId = `filter-fields-${projectName}`;

  return (
    <details class="panel" open={filter !== ""}>
      <summary>Filter {filter ? "(active)" : ""}</summary>
      <datalist id={listId}>
        {FIELD_HINTS.map((hint) => (
          <option key={hint} value={hint} />
        ))}
      </datalist>
      {rows.map((row, index) => (
        <div class="filter-row" key={index}>
          <input
            aria-label="Field"
            list={listId}
            placeholder="config.lr"
            value={row.field}
            onInput={(event) => update(index, { field: event.currentTarget.value })}
          />
          <select
            aria-label="Operator"
            value={row.operator}
            onChange={(event) => update(index, { operator: event.currentTarget.value as FilterOperator })}
          >
            {FILTER_OPERATORS.map((operator) => (
              <option key={operator} value={operator}>
                {OPERATOR_LABELS[operator]}
              </option>
            ))}
          </select>
          <input
            aria-label="Value"
            placeholder="0.01"
            value={row.value}
            onInput={(event) => update(index, { value: event.currentTarget.value })}
          />
          <button type="button" class="link" aria-label="Remove condition" onClick={() => setRows(rows.filter((_, i) => i !== index))}>
            ✕
          </button>
        </div>
      ))}
      <button type="button" class="link" onClick={() => setRows([...rows, { field: "", operator: "$eq", value: "" }])}>
        + condition
      </button>
      <label class="filter-json">
        Filter JSON (MongoDB style, see the API docs)
        <textarea rows={2} value={json} onInput={(event) => setJson(event.currentTarget.value)} spellcheck={false} />
      </label>
      <div class="actions">
        <button type="button" onClick={() => onApply(json.trim())}>
          Apply filter
        </button>
        <button
          type="button"
          class="link"
          onClick={() => {
            setRows([{ field: "", operator: "$eq", value: "" }]);
            onApply("");
          }}
        >
          Clear
        </button>
      </div>
    </details>
  );
}
