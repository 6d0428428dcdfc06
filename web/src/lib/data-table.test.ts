import assert from "node:assert/strict";
import { test } from "node:test";
import { compareCells, parseTable, sortedRowOrder } from "./data-table.ts";

test("reads pluto-ml's tables: cells, column names, row names", () => {
  // Table(dataframe=...).to_dict() for a two-column frame with an index.
  const text = JSON.stringify({
    table: [
      ["cat", 0.9],
      ["dog", 0.25],
    ],
    col: [
      { name: "label", dtype: "str" },
      { name: "score", dtype: "float" },
    ],
    row: [
      { name: "a", dtype: "str" },
      { name: "b", dtype: "str" },
    ],
    type: "Table",
    v: 1,
  });
  assert.deepEqual(parseTable(text), {
    ok: true,
    value: {
      columns: ["label", "score"],
      rows: [
        ["cat", 0.9],
        ["dog", 0.25],
      ],
      rowNames: ["a", "b"],
    },
  });
  // Table(data=[[...]]) without names: numbered columns, short rows padded.
  assert.deepEqual(parseTable('{"table":[[1,2,3],[4]]}'), {
    ok: true,
    value: {
      columns: ["0", "1", "2"],
      rows: [
        [1, 2, 3],
        [4, null, null],
      ],
    },
  });
  // A DataFrame's split orientation.
  const split = parseTable('{"columns":["x"],"data":[[1]],"index":[7]}');
  assert.deepEqual(split, { ok: true, value: { columns: ["x"], rows: [[1]], rowNames: ["7"] } });
});

test("a malformed table is an error, never an exception", () => {
  for (const [text, error] of [
    ["nope", /not JSON/],
    ['"text"', /not a JSON object/],
    ['{"table":3}', /not a list of rows/],
    ['{"table":[1,2]}', /not a list/],
    [JSON.stringify({ table: Array(1000).fill(Array(1000).fill(0)) }), /more than/],
  ] as const) {
    const parsed = parseTable(text);
    assert.equal(parsed.ok, false, text.slice(0, 40));
    if (!parsed.ok) assert.match(parsed.error, error);
  }
});

test("cells of several kinds order numbers, booleans, text, the rest, with text in natural order", () => {
  const cells = ["run10", null, 3, "run2", true, { a: 1 }, -1, Number.NaN, false];
  assert.deepEqual([...cells].sort(compareCells), [-1, 3, Number.NaN, false, true, "run2", "run10", { a: 1 }, null]);
});

test("sorting a column is stable and keeps empty cells last in either direction", () => {
  const rows = [[2], [null], [1], ["b"], [2], ["a"]];
  assert.deepEqual(sortedRowOrder(rows, 0, "asc"), [2, 0, 4, 5, 3, 1]);
  assert.deepEqual(sortedRowOrder(rows, 0, "desc"), [3, 5, 0, 4, 2, 1]);
});
