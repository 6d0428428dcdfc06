import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cellOf, csvCell, csvNumber, csvText, inferColumnType } from "./export-table.js";

describe("export tables", () => {
  it("spells non-finite numbers as pandas and DuckDB read them, and finite ones exactly", () => {
    assert.deepEqual([NaN, Infinity, -Infinity, -0, 0.1, 1e-300, 2 ** 53 + 2].map(csvNumber), [
      "nan",
      "inf",
      "-inf",
      "-0",
      "0.1",
      "1e-300",
      "9007199254740994",
    ]);
    for (const value of [Math.PI, 1 / 3, Math.fround(0.1), 5e-324, Number.MAX_VALUE]) assert.equal(Number(csvNumber(value)), value);
  });

  it("quotes text with commas, quotes, line breaks or edge spaces, and keeps empty apart from null", () => {
    assert.equal(csvText("plain"), "plain");
    assert.equal(csvText('say "hi", then\nleave'), '"say ""hi"", then\nleave"');
    assert.equal(csvText(" padded"), '" padded"');
    assert.equal(csvCell("", "string"), '""');
    assert.equal(csvCell(null, "string"), "");
    assert.equal(csvCell(1_700_000_000_000, "timestamp"), "2023-11-14T22:13:20.000Z");
    assert.equal(csvCell(true, "boolean"), "true");
  });

  it("types a column by its values: numbers double, booleans boolean, anything else string", () => {
    assert.equal(inferColumnType([1, null, 2.5]), "double");
    assert.equal(inferColumnType([true, undefined, false]), "boolean");
    assert.equal(inferColumnType([1, "a"]), "string");
    assert.equal(inferColumnType([1, true]), "string");
    assert.equal(inferColumnType([null]), "string");
    assert.equal(cellOf([1, 2], "string"), "[1,2]");
    assert.equal(cellOf(3, "string"), "3");
    assert.equal(cellOf(undefined, "double"), null);
  });
});
