import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_GROUPING } from "./grouping.ts";
import { parseColumns } from "./run-columns.ts";
import { appliedQuery, captureView, parseViewState, viewIdOf, viewLink } from "./saved-views.ts";
import { EMPTY_LAYOUT, type Layout } from "./workspace.ts";

const LAYOUT: Layout = {
  custom: [{ id: "custom:1", logNames: ["train/loss", "val/loss"] }],
  options: [["train/loss", { logScale: true, smoothing: 0.5, xAxis: "step", xMetric: "", clipY: false }]],
  collapsed: ["group00"],
  cap: 50,
  order: ["train/loss", "train/acc"],
  grouping: NO_GROUPING,
};
const QUERY = {
  search: "resnet",
  tags: "a,b",
  status: "COMPLETED",
  sort: "-summary_metrics.val/loss",
  filter: '{"op":"and"}',
  brush: '[{"axis":"config.lr","range":[0.01,0.1]}]',
};

test("a captured view reads back as the same page state (through its JSON, as the server returns it)", () => {
  const captured = captureView([{ source: "config", key: "lr" }], LAYOUT, new Set([7, 3]), QUERY);
  assert.deepEqual(captured, {
    version: 1,
    columns: [{ source: "config", key: "lr" }],
    layout: LAYOUT,
    hiddenRuns: [7, 3],
    query: QUERY,
    grouping: NO_GROUPING,
  });
  assert.deepEqual(parseViewState(JSON.parse(JSON.stringify(captured))), captured);
});

test("a layout's grouping and the table's default columns are carried through the view", () => {
  const grouping = { keys: ["config.lr", "tags"], line: "median" as const, band: "std" as const };
  const captured = captureView(null, { ...LAYOUT, grouping }, [], QUERY);
  assert.deepEqual(captured.grouping, grouping);
  const read = parseViewState(JSON.parse(JSON.stringify(captured)));
  assert.deepEqual(read.grouping, grouping);
  assert.deepEqual(read.layout.grouping, grouping);
  assert.equal(read.columns, null, "no columns chosen: the defaults, not none");
});

test("a malformed or foreign state falls back part by part, never throws", () => {
  assert.deepEqual(parseViewState(null), {
    version: 1,
    columns: null,
    layout: EMPTY_LAYOUT,
    hiddenRuns: [],
    query: { search: "", tags: "", status: "", sort: "", filter: "", brush: "" },
    grouping: NO_GROUPING,
  });
  const read = parseViewState({
    columns: [
      { source: "config", key: "lr" },
      { source: "evil", key: "x" },
      { source: "config", key: "lr" },
      "text",
      { source: "summary" },
    ],
    layout: { cap: 50, custom: "nope" },
    hiddenRuns: [1, "2", 1.5, 3],
    query: { search: 3, sort: "name", __proto__: { filter: "inherited" } },
  });
  assert.deepEqual(read.columns, [{ source: "config", key: "lr" }]);
  assert.deepEqual(read.layout, { ...EMPTY_LAYOUT, cap: 50 });
  assert.deepEqual(read.hiddenRuns, [1, 3]);
  assert.deepEqual(read.query, { search: "", tags: "", status: "", sort: "name", filter: "", brush: "" });
  assert.equal(parseColumns({ length: 1, 0: { source: "config", key: "lr" } }), null);
});

test("opening a view puts its query in the URL, the first page, without the view parameter", () => {
  const state = parseViewState({ query: { ...QUERY, tags: "", brush: "" } });
  assert.equal(appliedQuery(state), "search=resnet&status=COMPLETED&sort=-summary_metrics.val%2Floss&filter=%7B%22op%22%3A%22and%22%7D");
  assert.equal(appliedQuery(parseViewState({})), "");
});

test("a view's link and the ID a page's query asks for", () => {
  assert.equal(viewLink("http://host:1", "/projects/a%20b", 12), "http://host:1/projects/a%20b?view=12");
  assert.equal(viewIdOf(new URLSearchParams("view=12&search=x")), 12);
  for (const text of ["view=0", "view=-1", "view=1.5", "view=abc", "view=", "view=99999999999999999", "search=x"])
    assert.equal(viewIdOf(new URLSearchParams(text)), null, text);
});
