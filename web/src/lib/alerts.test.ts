import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type Condition,
  conditionInWords,
  deliveryInWords,
  destinationProblem,
  draftOf,
  EMPTY_DRAFT,
  type RuleDraft,
  ruleFromDraft,
} from "./alerts.ts";

const draft = (fields: Partial<RuleDraft>): RuleDraft => ({ ...EMPTY_DRAFT, name: "loss", ...fields });
const problemsOf = (fields: Partial<RuleDraft>) => {
  const checked = ruleFromDraft(draft(fields));
  return "problems" in checked ? checked.problems.map((problem) => problem.field) : [];
};

test("a condition reads as a sentence", () => {
  const cases: [Condition, string][] = [
    [{ type: "non_finite", metric: "*" }, "any metric becomes NaN or ±Inf"],
    [{ type: "non_finite", metric: "train/loss" }, "train/loss becomes NaN or ±Inf"],
    [{ type: "threshold", metric: "val/loss", op: "above", value: 5, consecutive: 1 }, "val/loss is above 5"],
    [{ type: "threshold", metric: "acc", op: "below", value: 0.25, consecutive: 3 }, "acc is below 0.25 for 3 consecutive points"],
    [{ type: "stalled", afterSeconds: 600 }, "a running run receives no data for 10m"],
    [{ type: "stalled", afterSeconds: 90 }, "a running run receives no data for 1m 30s"],
    [{ type: "status", statuses: ["FAILED", "TERMINATED"] }, "a run ends FAILED or TERMINATED"],
    [{ type: "client_alert", minLevel: "INFO" }, "the run's client sends any alert"],
    [{ type: "client_alert", minLevel: "WARN" }, "the run's client sends an alert of level WARN or above"],
  ];
  for (const [condition, words] of cases) assert.equal(conditionInWords(condition), words);
});

test("a valid threshold draft becomes the rule's body, its numbers parsed and its destinations once each", () => {
  assert.deepEqual(
    ruleFromDraft(
      draft({ name: "  loss high ", metric: " train/loss ", op: "below", value: "-2.5e-1", consecutive: "3", destinationIds: [2, 1, 2] }),
    ),
    {
      body: {
        name: "loss high",
        condition: { type: "threshold", metric: "train/loss", op: "below", value: -0.25, consecutive: 3 },
        destinationIds: [2, 1],
      },
    },
  );
  assert.deepEqual(ruleFromDraft(draft({ type: "non_finite", metric: "*" })), {
    body: { name: "loss", condition: { type: "non_finite", metric: "*" }, destinationIds: [] },
  });
});

test("the form refuses with the server's own checks, naming each field", () => {
  assert.deepEqual(problemsOf({ name: "  ", metric: "a", value: "1" }), ["name"]);
  assert.deepEqual(problemsOf({ name: "x".repeat(201), metric: "a", value: "1" }), ["name"]);
  assert.deepEqual(problemsOf({ metric: "", value: "1" }), ["metric"]);
  assert.deepEqual(problemsOf({ type: "non_finite", metric: " " }), ["metric"]);
  for (const value of ["", " ", "abc", "Infinity", "NaN", "1/2"]) assert.deepEqual(problemsOf({ metric: "a", value }), ["value"], value);
  for (const consecutive of ["0", "10001", "1.5", "", "-1", "2x"])
    assert.deepEqual(problemsOf({ metric: "a", value: "1", consecutive }), ["consecutive"], consecutive);
  assert.deepEqual(problemsOf({ metric: "a", value: "1", consecutive: "10000" }), []);
  for (const afterSeconds of ["9", "", "ten"])
    assert.deepEqual(problemsOf({ type: "stalled", afterSeconds }), ["afterSeconds"], afterSeconds);
  assert.deepEqual(problemsOf({ type: "stalled", afterSeconds: "10" }), []);
  assert.deepEqual(problemsOf({ type: "status", statuses: [] }), ["statuses"]);
  // The name and the condition are checked apart; within the condition, its first refusal.
  const checked = ruleFromDraft(draft({ name: "", metric: "", value: "x", consecutive: "0" }));
  assert.deepEqual("problems" in checked && checked.problems, [
    { field: "name", message: "must not be empty" },
    { field: "consecutive", message: "must be an integer from 1 to 10000" },
  ]);
});

test("a status rule's statuses go in the statuses' own order; a client alert rule keeps its level", () => {
  assert.deepEqual(ruleFromDraft(draft({ type: "status", statuses: ["TERMINATED", "FAILED"] })), {
    body: { name: "loss", condition: { type: "status", statuses: ["FAILED", "TERMINATED"] }, destinationIds: [] },
  });
  assert.deepEqual(ruleFromDraft(draft({ type: "client_alert", minLevel: "ERROR" })), {
    body: { name: "loss", condition: { type: "client_alert", minLevel: "ERROR" }, destinationIds: [] },
  });
});

test("editing a rule starts from a draft that gives back the same rule", () => {
  const conditions: Condition[] = [
    { type: "threshold", metric: "val/loss", op: "below", value: 0.001, consecutive: 7 },
    { type: "non_finite", metric: "*" },
    { type: "stalled", afterSeconds: 45 },
    { type: "status", statuses: ["COMPLETED", "CANCELLED"] },
    { type: "client_alert", minLevel: "WARN" },
  ];
  for (const condition of conditions) {
    const rule = { name: "r", condition, destinationIds: [4] };
    assert.deepEqual(ruleFromDraft(draftOf(rule)), { body: rule });
  }
});

test("a destination needs a name and an http(s) URL", () => {
  assert.equal(destinationProblem("hook", "https://example.com/hook"), undefined);
  assert.equal(destinationProblem("hook", "http://127.0.0.1:8080/"), undefined);
  assert.match(destinationProblem(" ", "https://example.com") ?? "", /name/);
  for (const url of ["", "example.com/hook", "ftp://example.com/", "javascript:alert(1)"])
    assert.match(destinationProblem("hook", url) ?? "", /http/, url);
});

test("a delivery's state in words", () => {
  const now = 1_000_000;
  assert.equal(deliveryInWords({ status: "delivered", attempts: 1, nextAttemptAt: null }, now), "delivered");
  assert.equal(deliveryInWords({ status: "delivered", attempts: 3, nextAttemptAt: null }, now), "delivered after 3 attempts");
  assert.equal(deliveryInWords({ status: "failed", attempts: 1, nextAttemptAt: null }, now), "failed after 1 attempt");
  assert.equal(deliveryInWords({ status: "pending", attempts: 0, nextAttemptAt: now }, now), "pending, due now");
  assert.equal(
    deliveryInWords({ status: "pending", attempts: 2, nextAttemptAt: now + 30_000 }, now),
    "pending after 2 attempts, next in 30s",
  );
  assert.equal(deliveryInWords({ status: "pending", attempts: 0, nextAttemptAt: null }, now), "pending");
});
