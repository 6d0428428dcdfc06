import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isTerminal, RUN_STATUSES, shouldApplyStatus, type RunStatus } from "./status.js";

// docs/semantics.md (Runs: status), written out independently of status.ts: FAILED > CANCELLED > TERMINATED > COMPLETED.
const RANK: Record<RunStatus, number | undefined> = { RUNNING: undefined, COMPLETED: 1, TERMINATED: 2, CANCELLED: 3, FAILED: 4 };

function expected(current: RunStatus, requested: RunStatus): boolean {
  if (current === requested) return false; // a repeat records no second event
  if (requested === "RUNNING") return true; // a resume may follow any terminal status
  if (current === "RUNNING") return true;
  return RANK[requested]! > RANK[current]!;
}

describe("shouldApplyStatus", () => {
  it("covers all five statuses", () =>
    assert.deepEqual([...RUN_STATUSES].sort(), ["CANCELLED", "COMPLETED", "FAILED", "RUNNING", "TERMINATED"]));

  for (const current of RUN_STATUSES) {
    for (const requested of RUN_STATUSES) {
      const apply = expected(current, requested);
      it(`${current} → ${requested}: ${apply ? "applied" : "ignored"}`, () => assert.equal(shouldApplyStatus(current, requested), apply));
    }
  }

  it("a later COMPLETED never replaces FAILED, whatever came between", () => {
    let status: RunStatus = "RUNNING";
    for (const next of ["FAILED", "COMPLETED", "TERMINATED", "CANCELLED", "COMPLETED"] as RunStatus[]) {
      if (shouldApplyStatus(status, next)) status = next;
    }
    assert.equal(status, "FAILED");
  });

  it("many ranks reporting the same outcomes in any order converge on the highest one", () => {
    const reports: RunStatus[] = ["COMPLETED", "TERMINATED", "COMPLETED", "CANCELLED", "TERMINATED"];
    for (let rotation = 0; rotation < reports.length; rotation++) {
      const order = [...reports.slice(rotation), ...reports.slice(0, rotation)];
      let status: RunStatus = "RUNNING";
      let applied = 0;
      for (const next of order) {
        if (shouldApplyStatus(status, next)) {
          status = next;
          applied++;
        }
      }
      assert.equal(status, "CANCELLED", order.join(","));
      assert.ok(applied <= 3, `${order.join(",")}: ${applied} events`);
    }
  });
});

describe("isTerminal", () => {
  it("is true for every status but RUNNING", () => {
    for (const status of RUN_STATUSES) assert.equal(isTerminal(status), status !== "RUNNING", status);
  });
});
