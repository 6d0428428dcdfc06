import assert from "node:assert/strict";
import { test } from "node:test";
import { describeSeriesEnd, divergedRunMark, endKind } from "./series-end.ts";

test("a series that ended non-finite says so, with its last finite value beside it", () => {
  assert.deepEqual(describeSeriesEnd({ step: 1880, value: 0, valueFlag: "NaN" }, { step: 1879, value: 0.00053 }), {
    text: "last NaN @ 1,880",
    finite: "last finite 0.00053 @ 1,879",
    diverged: "NaN",
  });
  assert.deepEqual(describeSeriesEnd({ step: 3, value: 0, valueFlag: "Inf" }, null), {
    text: "last +Inf @ 3",
    finite: "no finite value",
    diverged: "+Inf",
  });
  assert.equal(describeSeriesEnd({ step: 3, value: 0, valueFlag: "-Inf" }, null).diverged, "-Inf");
});

test("a healthy series reads its last value; a series without points reads nothing", () => {
  assert.deepEqual(describeSeriesEnd({ step: 99, value: 1e-6, valueFlag: "" }, { step: 99, value: 1e-6 }), { text: "last 1e-6 @ 99" });
  assert.deepEqual(describeSeriesEnd(null, null), { text: "" });
});

test("the kind of a non-finite end", () => {
  assert.equal(endKind({ step: 1, value: 0, valueFlag: "Inf" }), "+Inf");
  assert.equal(endKind({ step: 1, value: 2, valueFlag: "" }), undefined);
  assert.equal(endKind(null), undefined);
});

test("a run whose metrics ended non-finite is marked with the first kind, how many more, and all on hover", () => {
  assert.equal(divergedRunMark(undefined), undefined);
  assert.equal(divergedRunMark([]), undefined);
  assert.deepEqual(divergedRunMark([{ logName: "loss", step: 1880, valueFlag: "NaN" }]), {
    text: "NaN",
    title: "Ended non-finite: loss NaN @ 1,880",
  });
  assert.deepEqual(
    divergedRunMark([
      { logName: "grad", step: 12, valueFlag: "Inf" },
      { logName: "loss", step: 13, valueFlag: "-Inf" },
    ]),
    { text: "+Inf +1", title: "Ended non-finite: grad +Inf @ 12; loss -Inf @ 13" },
  );
});
