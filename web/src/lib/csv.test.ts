import assert from "node:assert/strict";
import { test } from "node:test";
import { fileNameOf, pointsCsv, textCell, valueCell } from "./csv.ts";

test("names with commas, quotes or line breaks are quoted, quotes doubled", () => {
  assert.equal(textCell("plain-name"), "plain-name");
  assert.equal(textCell("lr=0.1, bs=32"), '"lr=0.1, bs=32"');
  assert.equal(textCell('the "best" run'), '"the ""best"" run"');
  assert.equal(textCell("two\nlines"), '"two\nlines"');
  assert.equal(textCell(" padded"), '" padded"');
});

test("a name a spreadsheet would run as a formula gets a leading apostrophe", () => {
  for (const start of ["=", "+", "-", "@", "\t"]) assert.equal(textCell(`${start}SUM(A1)`)[0], "'", start);
  assert.equal(textCell('=HYPERLINK("x","y")'), '"\'=HYPERLINK(""x"",""y"")"');
  assert.equal(textCell("a=b"), "a=b", "only at the start");
});

test("values keep their digits; non-finite values are NaN, Inf and -Inf", () => {
  assert.equal(valueCell(0.000012345678901234), "0.000012345678901234");
  assert.equal(valueCell(-0.5), "-0.5");
  assert.equal(valueCell(Number.NaN), "NaN");
  assert.equal(valueCell(Infinity), "Inf");
  assert.equal(valueCell(-Infinity), "-Inf");
});

test("one row per point under a header, CRLF line ends", () => {
  const csv = pointsCsv([
    { runName: "a, b", runId: 7, metric: "train/loss", step: 0, time: Date.UTC(2026, 0, 2, 3, 4, 5), value: 1.5 },
    { runName: "a, b", runId: 7, metric: "train/loss", step: 1, time: Date.UTC(2026, 0, 2, 3, 4, 6), value: Number.NaN },
  ]);
  assert.equal(
    csv,
    'run_name,run_id,metric,step,time,value\r\n"a, b",7,train/loss,0,2026-01-02T03:04:05.000Z,1.5\r\n"a, b",7,train/loss,1,2026-01-02T03:04:06.000Z,NaN\r\n',
  );
});

test("file names keep a title's safe characters", () => {
  assert.equal(fileNameOf("train/loss · val/loss", "csv"), "train_loss_val_loss.csv");
  assert.equal(fileNameOf("///", "png"), "chart.png");
});
