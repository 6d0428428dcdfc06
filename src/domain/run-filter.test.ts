import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "./errors.js";
import { compileRunFilter, MAX_FILTER_DEPTH, MAX_FILTER_NODES, RUN_FILTER_GRAMMAR } from "./run-filter.js";
import type { FilterableRun } from "./run-view.js";

const T0 = Date.parse("2024-03-01T12:00:00.000Z");

function makeRun(overrides: Partial<FilterableRun> = {}): FilterableRun {
  return {
    name: "resnet-baseline",
    status: "RUNNING",
    tags: ["vision", "baseline"],
    createdAt: T0,
    updatedAt: T0 + 60_000,
    heartbeatAt: T0 + 30_000,
    config: { "optim.lr": 0.01, "optim.name": "adam", layers: [64, 128], "model.pretrained": true, "data.split": null, empty: {} },
    systemMetadata: { "gpu.count": 8, hostname: "node-7" },
    summaryMetrics: { loss: 0.25, acc: 0.9, broken: null },
    ...overrides,
  };
}

const RUN = makeRun();

function matches(filter: unknown, run: FilterableRun = RUN): boolean {
  return compileRunFilter(filter).test(run);
}

function rejects(filter: unknown, message: RegExp): void {
  assert.throws(
    () => compileRunFilter(filter),
    (error: unknown) => {
      assert.ok(error instanceof DomainError, `expected DomainError, got ${String(error)}`);
      assert.equal(error.code, "INVALID_INPUT");
      assert.match(error.message, message);
      assert.match(error.message, /^filter: /);
      return true;
    },
  );
}

describe("RUN_FILTER_GRAMMAR", () => {
  it("lists exactly the names of docs/semantics.md (Run filters)", () => {
    assert.deepEqual([...RUN_FILTER_GRAMMAR.booleanOperators], ["$and", "$or", "$not"]);
    assert.deepEqual([...RUN_FILTER_GRAMMAR.leafOperators], ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$regex"]);
    assert.deepEqual(
      [...RUN_FILTER_GRAMMAR.fields].sort(),
      [
        "state",
        "status",
        "heartbeat_at",
        "heartbeatAt",
        "created_at",
        "createdAt",
        "updated_at",
        "updatedAt",
        "name",
        "displayName",
        "display_name",
        "tags",
      ].sort(),
    );
    assert.deepEqual([...RUN_FILTER_GRAMMAR.fieldPrefixes], ["config.", "systemMetadata.", "summaryMetrics.", "summary_metrics."]);
  });

  it("every listed field compiles", () => {
    for (const field of RUN_FILTER_GRAMMAR.fields) {
      const operand = field.includes("_at") || field.endsWith("At") ? T0 : field === "status" || field === "state" ? "running" : "x";
      assert.doesNotThrow(() => compileRunFilter({ [field]: { $in: [operand] } }), field);
    }
  });
});

describe("compileRunFilter: structure", () => {
  it("an empty filter matches every run", () => assert.equal(matches({}), true));

  it("top-level keys are an implicit $and", () => {
    assert.equal(matches({ name: "resnet-baseline", status: "RUNNING" }), true);
    assert.equal(matches({ name: "resnet-baseline", status: "FAILED" }), false);
  });

  it("several operators on one field must all hold", () => {
    assert.equal(matches({ "config.optim.lr": { $gt: 0.001, $lt: 0.1 } }), true);
    assert.equal(matches({ "config.optim.lr": { $gt: 0.001, $lt: 0.005 } }), false);
  });

  it("$and requires every filter", () => {
    assert.equal(matches({ $and: [{ name: "resnet-baseline" }, { tags: "vision" }] }), true);
    assert.equal(matches({ $and: [{ name: "resnet-baseline" }, { tags: "nlp" }] }), false);
  });

  it("$or requires one filter", () => {
    assert.equal(matches({ $or: [{ name: "other" }, { tags: "vision" }] }), true);
    assert.equal(matches({ $or: [{ name: "other" }, { tags: "nlp" }] }), false);
  });

  it("$not negates one filter object", () => {
    assert.equal(matches({ $not: { status: "FAILED" } }), true);
    assert.equal(matches({ $not: { status: "RUNNING", name: "resnet-baseline" } }), false);
    assert.equal(matches({ $not: { status: "RUNNING", name: "other" } }), true);
  });

  it("$not also negates an operator object inside a field", () => {
    assert.equal(matches({ name: { $not: { $regex: "^tmp" } } }), true);
    assert.equal(matches({ name: { $not: { $regex: "^resnet" } } }), false);
    // Like MongoDB, a negated condition matches runs that lack the key.
    assert.equal(matches({ "config.missing": { $not: { $gt: 1 } } }), true);
  });

  it("boolean operators nest", () => {
    const filter = {
      $or: [
        { $and: [{ status: "failed" }, { tags: "vision" }] },
        { $and: [{ "summaryMetrics.loss": { $lt: 0.3 } }, { $not: { tags: { $in: ["nlp", "audio"] } } }] },
      ],
    };
    assert.equal(matches(filter), true);
    assert.equal(matches(filter, makeRun({ summaryMetrics: { loss: 0.5 } })), false);
    assert.equal(matches(filter, makeRun({ summaryMetrics: { loss: 0.5 }, status: "FAILED" })), true);
    assert.equal(matches(filter, makeRun({ tags: ["nlp"] })), false);
  });

  it("combines boolean operators and fields at one level", () => {
    assert.equal(matches({ $or: [{ tags: "vision" }, { tags: "nlp" }], name: "resnet-baseline" }), true);
    assert.equal(matches({ $or: [{ tags: "vision" }, { tags: "nlp" }], name: "other" }), false);
  });

  it("reports referenced summary metrics once, under either prefix", () => {
    const compiled = compileRunFilter({
      $or: [{ "summaryMetrics.loss": { $lt: 1 } }, { "summary_metrics.loss": { $gt: 2 } }, { "summary_metrics.val/acc": 1 }],
      name: "x",
    });
    assert.deepEqual([...compiled.summaryMetricNames].sort(), ["loss", "val/acc"]);
    assert.deepEqual(compileRunFilter({ name: "x", "config.loss": 1 }).summaryMetricNames, []);
  });
});

describe("compileRunFilter: name", () => {
  for (const field of ["name", "displayName", "display_name"]) {
    it(`${field} reads the run name with every leaf operator`, () => {
      assert.equal(matches({ [field]: "resnet-baseline" }), true);
      assert.equal(matches({ [field]: "resnet" }), false);
      assert.equal(matches({ [field]: { $eq: "resnet-baseline" } }), true);
      assert.equal(matches({ [field]: { $ne: "resnet-baseline" } }), false);
      assert.equal(matches({ [field]: { $ne: "other" } }), true);
      assert.equal(matches({ [field]: { $gt: "resnet" } }), true);
      assert.equal(matches({ [field]: { $gte: "resnet-baseline" } }), true);
      assert.equal(matches({ [field]: { $lt: "resnet-baseline" } }), false);
      assert.equal(matches({ [field]: { $lte: "resnet-baseline" } }), true);
      assert.equal(matches({ [field]: { $in: ["a", "resnet-baseline"] } }), true);
      assert.equal(matches({ [field]: { $in: ["a", "b"] } }), false);
      assert.equal(matches({ [field]: { $nin: ["a", "b"] } }), true);
      assert.equal(matches({ [field]: { $nin: ["resnet-baseline"] } }), false);
      assert.equal(matches({ [field]: { $regex: "^res.*line$" } }), true);
      assert.equal(matches({ [field]: { $regex: "net-base" } }), true, "unanchored search");
    });
  }

  it("$regex is case-sensitive unless $options is i", () => {
    assert.equal(matches({ name: { $regex: "RESNET" } }), false);
    assert.equal(matches({ name: { $regex: "RESNET", $options: "i" } }), true);
    assert.equal(matches({ name: { $regex: "RESNET", $options: "" } }), false);
  });

  it("$regex accepts JavaScript escapes", () => {
    assert.equal(matches({ name: { $regex: "\\u0072esnet" } }), true);
    assert.equal(matches({ name: { $regex: "^(?<family>[a-z]+)-\\w+$" } }), true);
    assert.equal(matches({ name: { $regex: "\\d" } }), false);
  });

  it("rejects non-string operands", () => {
    rejects({ name: 5 }, /\$eq on 'name' expects a string/);
    rejects({ name: null }, /expects a string/);
    rejects({ name: { $gt: 5 } }, /\$gt on 'name' expects a string/);
    rejects({ displayName: { $in: ["a", 1] } }, /\$in on 'displayName' expects a string/);
    rejects({ name: { $regex: 5 } }, /\$regex on 'name' expects a pattern string/);
    rejects({ name: { a: 1 } }, /expects a string/);
  });
});

describe("compileRunFilter: status", () => {
  const failed = makeRun({ status: "FAILED" });

  for (const field of ["status", "state"]) {
    it(`${field} accepts names case-insensitively`, () => {
      assert.equal(matches({ [field]: "RUNNING" }), true);
      assert.equal(matches({ [field]: "running" }), true);
      assert.equal(matches({ [field]: "Running" }), true);
      assert.equal(matches({ [field]: "failed" }), false);
      assert.equal(matches({ [field]: { $eq: "failed" } }, failed), true);
      assert.equal(matches({ [field]: { $ne: "failed" } }, failed), false);
      assert.equal(matches({ [field]: { $ne: "failed" } }), true);
      assert.equal(matches({ [field]: { $in: ["completed", "failed"] } }, failed), true);
      assert.equal(matches({ [field]: { $nin: ["completed", "failed"] } }, failed), false);
      assert.equal(matches({ [field]: { $nin: ["completed", "failed"] } }), true);
    });
  }

  it("accepts the aliases finished, crashed and killed", () => {
    assert.equal(matches({ status: "finished" }, makeRun({ status: "COMPLETED" })), true);
    assert.equal(matches({ status: "Crashed" }, failed), true);
    assert.equal(matches({ state: "KILLED" }, makeRun({ status: "TERMINATED" })), true);
    assert.equal(matches({ status: { $in: ["finished", "crashed"] } }, makeRun({ status: "TERMINATED" })), false);
    assert.equal(matches({ status: "cancelled" }, makeRun({ status: "CANCELLED" })), true);
  });

  it("$regex tests the canonical upper-case name", () => {
    assert.equal(matches({ status: { $regex: "^FAIL" } }, failed), true);
    assert.equal(matches({ status: { $regex: "^fail" } }, failed), false);
    assert.equal(matches({ status: { $regex: "^fail", $options: "i" } }, failed), true);
  });

  it("rejects unknown statuses and ordering operators", () => {
    rejects({ status: "exploded" }, /\$eq on 'status' expects a status \(RUNNING, COMPLETED/);
    rejects({ state: { $in: ["running", "nope"] } }, /expects a status/);
    rejects({ status: 1 }, /expects a status/);
    rejects({ status: { $gt: "FAILED" } }, /operator '\$gt' is not supported on 'status'/);
    rejects({ state: { $lte: "FAILED" } }, /operator '\$lte' is not supported on 'state'/);
  });
});

describe("compileRunFilter: times", () => {
  const fields: [string, keyof FilterableRun][] = [
    ["createdAt", "createdAt"],
    ["created_at", "createdAt"],
    ["updatedAt", "updatedAt"],
    ["updated_at", "updatedAt"],
    ["heartbeatAt", "heartbeatAt"],
    ["heartbeat_at", "heartbeatAt"],
  ];

  for (const [field, property] of fields) {
    it(`${field} compares instants given as epoch ms or ISO-8601`, () => {
      const at = RUN[property] as number;
      const iso = new Date(at).toISOString();
      assert.equal(matches({ [field]: at }), true);
      assert.equal(matches({ [field]: iso }), true);
      assert.equal(matches({ [field]: { $eq: at + 1 } }), false);
      assert.equal(matches({ [field]: { $ne: iso } }), false);
      assert.equal(matches({ [field]: { $ne: at + 1 } }), true);
      assert.equal(matches({ [field]: { $gt: at - 1 } }), true);
      assert.equal(matches({ [field]: { $gt: iso } }), false);
      assert.equal(matches({ [field]: { $gte: iso } }), true);
      assert.equal(matches({ [field]: { $lt: new Date(at + 1).toISOString() } }), true);
      assert.equal(matches({ [field]: { $lt: at } }), false);
      assert.equal(matches({ [field]: { $lte: at } }), true);
      assert.equal(matches({ [field]: { $in: [1, iso] } }), true);
      assert.equal(matches({ [field]: { $nin: [1, iso] } }), false);
      assert.equal(matches({ [field]: { $nin: [1, 2] } }), true);
    });
  }

  it("reads ISO-8601 offsets and zone-less times as UTC", () => {
    assert.equal(matches({ createdAt: "2024-03-01T12:00:00Z" }), true);
    assert.equal(matches({ createdAt: "2024-03-01T12:00:00" }), true);
    assert.equal(matches({ createdAt: "2024-03-01T14:00:00+02:00" }), true);
    assert.equal(matches({ createdAt: "2024-03-01T07:00-0500" }), true);
    assert.equal(matches({ createdAt: { $gt: "2024-03-01", $lt: "2024-03-02" } }), true);
  });

  it("null finds runs without a heartbeat; a missing heartbeat never satisfies an ordering", () => {
    const silent = makeRun({ heartbeatAt: null });
    assert.equal(matches({ heartbeatAt: null }, silent), true);
    assert.equal(matches({ heartbeatAt: null }), false);
    assert.equal(matches({ heartbeatAt: { $ne: null } }, silent), false);
    assert.equal(matches({ heartbeatAt: { $in: [null, T0] } }, silent), true);
    assert.equal(matches({ heartbeatAt: { $gt: 0 } }, silent), false);
    assert.equal(matches({ heartbeatAt: { $lt: T0 * 2 } }, silent), false);
    assert.equal(matches({ heartbeatAt: { $ne: T0 } }, silent), true, "$ne matches a run without the value");
    assert.equal(matches({ heartbeatAt: { $nin: [T0] } }, silent), true);
  });

  it("rejects invalid dates and unsupported operators", () => {
    rejects({ createdAt: "yesterday" }, /\$eq on 'createdAt' expects epoch milliseconds or an ISO-8601 date/);
    rejects({ created_at: "2024-02-30" }, /ISO-8601/);
    rejects({ updatedAt: "2024-13-01T00:00:00Z" }, /ISO-8601/);
    rejects({ updatedAt: "March 1, 2024" }, /ISO-8601/);
    rejects({ heartbeatAt: { $gt: null } }, /\$gt on 'heartbeatAt' expects/);
    rejects({ heartbeat_at: { $in: ["2024-01-01", "soon"] } }, /\$in on 'heartbeat_at'/);
    rejects({ createdAt: true }, /expects epoch milliseconds/);
    rejects({ createdAt: { $regex: "2024" } }, /operator '\$regex' is not supported on 'createdAt'/);
  });
});

describe("compileRunFilter: tags", () => {
  it("$eq and $ne test one tag", () => {
    assert.equal(matches({ tags: "vision" }), true);
    assert.equal(matches({ tags: { $eq: "baseline" } }), true);
    assert.equal(matches({ tags: "nlp" }), false);
    assert.equal(matches({ tags: { $ne: "nlp" } }), true);
    assert.equal(matches({ tags: { $ne: "vision" } }), false);
  });

  it("$in and $nin test any and none of a list", () => {
    assert.equal(matches({ tags: { $in: ["nlp", "vision"] } }), true);
    assert.equal(matches({ tags: { $in: ["nlp", "audio"] } }), false);
    assert.equal(matches({ tags: { $nin: ["nlp", "audio"] } }), true);
    assert.equal(matches({ tags: { $nin: ["nlp", "baseline"] } }), false);
  });

  it("$regex matches any tag", () => {
    assert.equal(matches({ tags: { $regex: "^base" } }), true);
    assert.equal(matches({ tags: { $regex: "^nl" } }), false);
    assert.equal(matches({ tags: { $regex: "^VIS", $options: "i" } }), true);
  });

  it("a run without tags matches only the negations", () => {
    const bare = makeRun({ tags: [] });
    assert.equal(matches({ tags: "vision" }, bare), false);
    assert.equal(matches({ tags: { $in: ["vision"] } }, bare), false);
    assert.equal(matches({ tags: { $regex: "." } }, bare), false);
    assert.equal(matches({ tags: { $ne: "vision" } }, bare), true);
    assert.equal(matches({ tags: { $nin: ["vision"] } }, bare), true);
  });

  it("rejects non-string tags and ordering operators", () => {
    rejects({ tags: ["vision"] }, /\$eq on 'tags' expects a string/);
    rejects({ tags: { $in: "vision" } }, /\$in on 'tags' takes an array/);
    rejects({ tags: { $gt: "a" } }, /operator '\$gt' is not supported on 'tags'/);
    rejects({ tags: { $lt: "a" } }, /not supported on 'tags'/);
  });
});

describe("compileRunFilter: config and systemMetadata", () => {
  it("looks up flattened dotted keys with every leaf operator", () => {
    assert.equal(matches({ "config.optim.lr": 0.01 }), true);
    assert.equal(matches({ "config.optim.lr": { $eq: 0.02 } }), false);
    assert.equal(matches({ "config.optim.lr": { $ne: 0.02 } }), true);
    assert.equal(matches({ "config.optim.lr": { $gt: 0.001 } }), true);
    assert.equal(matches({ "config.optim.lr": { $gte: 0.01 } }), true);
    assert.equal(matches({ "config.optim.lr": { $lt: 0.01 } }), false);
    assert.equal(matches({ "config.optim.lr": { $lte: 0.01 } }), true);
    assert.equal(matches({ "config.optim.name": { $in: ["sgd", "adam"] } }), true);
    assert.equal(matches({ "config.optim.name": { $nin: ["sgd", "adam"] } }), false);
    assert.equal(matches({ "config.optim.name": { $regex: "^ad" } }), true);
    assert.equal(matches({ "config.model.pretrained": true }), true);
    assert.equal(matches({ "config.model.pretrained": "true" }), false);
    assert.equal(matches({ "systemMetadata.gpu.count": { $gte: 8 } }), true);
    assert.equal(matches({ "systemMetadata.hostname": "node-7" }), true);
    assert.equal(matches({ "systemMetadata.hostname": { $regex: "^node-\\d$" } }), true);
  });

  it("only leaves are addressable: a nested object prefix is a missing key", () => {
    assert.equal(matches({ "config.optim": { $ne: null } }), false);
    assert.equal(matches({ "config.optim": null }), true);
  });

  it("a missing key equals null, so $ne and $nin match runs that lack it", () => {
    assert.equal(matches({ "config.missing": { $ne: 1 } }), true);
    assert.equal(matches({ "config.missing": { $nin: [1, 2] } }), true);
    assert.equal(matches({ "config.missing": 1 }), false);
    assert.equal(matches({ "config.missing": { $in: [1] } }), false);
    assert.equal(matches({ "config.missing": { $gt: 0 } }), false);
    assert.equal(matches({ "config.missing": { $lt: "z" } }), false);
    assert.equal(matches({ "config.missing": { $regex: "" } }), false);
    assert.equal(matches({ "config.missing": null }), true);
    assert.equal(matches({ "config.missing": { $in: [null] } }), true);
  });

  it("stored null equals null and has no order", () => {
    assert.equal(matches({ "config.data.split": null }), true);
    assert.equal(matches({ "config.data.split": { $ne: null } }), false);
    assert.equal(matches({ "config.data.split": { $gte: 0 } }), false);
  });

  it("prototype member names are ordinary missing keys", () => {
    assert.equal(matches({ "config.constructor": { $ne: 1 } }), true);
    assert.equal(matches({ "config.__proto__": null }), true);
    assert.equal(matches({ "config.toString": { $regex: "" } }), false);
  });

  it("type bracketing: a number never orders against a string, and vice versa", () => {
    assert.equal(matches({ "config.optim.lr": { $gt: "0" } }), false);
    assert.equal(matches({ "config.optim.lr": { $lt: "z" } }), false);
    assert.equal(matches({ "config.optim.name": { $gt: 0 } }), false);
    assert.equal(matches({ "config.optim.name": { $gte: "adam", $lt: "b" } }), true);
    assert.equal(matches({ "config.model.pretrained": { $gt: 0 } }), false);
    assert.equal(matches({ "config.optim.lr": "0.01" }), false);
    assert.equal(matches({ "config.optim.lr": { $regex: "0" } }), false, "$regex only tests strings");
  });

  it("array leaves match by whole-array equality or by any element", () => {
    assert.equal(matches({ "config.layers": [64, 128] }), true);
    assert.equal(matches({ "config.layers": [128, 64] }), false);
    assert.equal(matches({ "config.layers": 64 }), true);
    assert.equal(matches({ "config.layers": { $ne: 64 } }), false);
    assert.equal(matches({ "config.layers": { $ne: 32 } }), true);
    assert.equal(matches({ "config.layers": { $in: [32, 128] } }), true);
    assert.equal(matches({ "config.layers": { $nin: [32, 128] } }), false);
    assert.equal(matches({ "config.layers": { $gt: 100 } }), true);
    assert.equal(matches({ "config.layers": { $gt: 200 } }), false);
    assert.equal(matches({ "config.layers": { $eq: [64] } }), false);
  });

  it("objects compare structurally", () => {
    assert.equal(matches({ "config.empty": {} }), true);
    assert.equal(matches({ "config.empty": { $eq: {} } }), true);
    const run = makeRun({ config: { pair: [{ a: 1, b: [2] }] } });
    assert.equal(matches({ "config.pair": { b: [2], a: 1 } }, run), true);
    assert.equal(matches({ "config.pair": { $eq: { a: 1 } } }, run), false);
  });

  it("rejects bad operands", () => {
    rejects({ "config.x": { $gt: null } }, /\$gt on 'config.x' expects a number or a string/);
    rejects({ "config.x": { $lte: [1] } }, /expects a number or a string/);
    rejects({ "config.x": { $in: 1 } }, /\$in on 'config.x' takes an array/);
    rejects({ "systemMetadata.x": { $nin: { a: 1 } } }, /\$nin on 'systemMetadata.x' takes an array/);
    rejects({ "config.x": { $regex: ["a"] } }, /expects a pattern string/);
  });
});

describe("compileRunFilter: summary metrics", () => {
  for (const prefix of ["summaryMetrics.", "summary_metrics."]) {
    it(`${prefix}<name> compares the last value`, () => {
      assert.equal(matches({ [`${prefix}loss`]: 0.25 }), true);
      assert.equal(matches({ [`${prefix}loss`]: { $ne: 0.25 } }), false);
      assert.equal(matches({ [`${prefix}loss`]: { $lt: 0.3 } }), true);
      assert.equal(matches({ [`${prefix}loss`]: { $lte: 0.25 } }), true);
      assert.equal(matches({ [`${prefix}loss`]: { $gt: 0.25 } }), false);
      assert.equal(matches({ [`${prefix}acc`]: { $gte: 0.9 } }), true);
      assert.equal(matches({ [`${prefix}acc`]: { $in: [0.8, 0.9] } }), true);
      assert.equal(matches({ [`${prefix}acc`]: { $nin: [0.8, 0.9] } }), false);
      assert.equal(matches({ [`${prefix}acc`]: { $regex: "0" } }), false);
    });
  }

  it("a run without the metric matches only $ne / $nin / null", () => {
    assert.equal(matches({ "summaryMetrics.bleu": { $gt: 0 } }), false);
    assert.equal(matches({ "summaryMetrics.bleu": { $lt: 0 } }), false);
    assert.equal(matches({ "summaryMetrics.bleu": { $ne: 1 } }), true);
    assert.equal(matches({ "summaryMetrics.bleu": { $nin: [1] } }), true);
    assert.equal(matches({ "summaryMetrics.bleu": null }), true);
  });

  it("a metric without a finite value is null", () => {
    assert.equal(matches({ "summaryMetrics.broken": null }), true);
    assert.equal(matches({ "summaryMetrics.broken": { $gt: 0 } }), false);
    assert.equal(matches({ "summaryMetrics.broken": { $ne: 0 } }), true);
  });

  it("metric names may contain dots and slashes", () => {
    const run = makeRun({ summaryMetrics: { "val/acc.top1": 0.7 } });
    assert.equal(matches({ "summary_metrics.val/acc.top1": { $gt: 0.5 } }, run), true);
  });
});

describe("compileRunFilter: $regex safety", () => {
  it("a catastrophic-backtracking pattern runs in linear time", () => {
    const run = makeRun({ name: `${"a".repeat(100_000)}!` });
    const started = Date.now();
    assert.equal(matches({ name: { $regex: "(a+)+$" } }, run), false);
    assert.equal(matches({ name: { $regex: "(a|aa)+!$" } }, run), true);
    // Backtracking engines take far longer than this; the bound is loose so the test is not flaky.
    assert.ok(Date.now() - started < 5_000);
  });

  it("backreferences are a 400 that says so", () => {
    rejects({ name: { $regex: "(a)\\1" } }, /\$regex on 'name': backreferences are not supported/);
    rejects({ name: { $regex: "(?<x>a)\\k<x>" } }, /backreferences are not supported/);
  });

  it("lookaround is a 400 that says so", () => {
    rejects({ name: { $regex: "foo(?=bar)" } }, /\$regex on 'name': invalid or unsupported pattern.*lookaround are not supported/);
    rejects({ name: { $regex: "(?<!x)y" } }, /lookaround are not supported/);
  });

  it("malformed patterns and options are a 400", () => {
    rejects({ name: { $regex: "[a-" } }, /invalid or unsupported pattern \(missing closing \]/);
    rejects({ name: { $regex: "a**" } }, /invalid or unsupported pattern/);
    rejects({ name: { $regex: "x".repeat(1001) } }, /longer than 1000 characters/);
    rejects({ name: { $regex: "a", $options: "g" } }, /\$options on 'name' supports only "i"/);
    rejects({ name: { $regex: "a", $options: 1 } }, /supports only "i"/);
    rejects({ name: { $options: "i" } }, /\$options on 'name' is only allowed alongside \$regex/);
  });
});

describe("compileRunFilter: rejected shapes", () => {
  it("the filter must be an object", () => {
    rejects(null, /expected a JSON object/);
    rejects([], /expected a JSON object/);
    rejects("name", /expected a JSON object/);
    rejects(3, /expected a JSON object/);
  });

  it("unknown fields, empty keys and bare prefixes", () => {
    rejects({ foo: 1 }, /^filter: unknown field 'foo'$/);
    rejects({ Name: "x" }, /unknown field 'Name'/);
    rejects({ "metrics.loss": 1 }, /unknown field 'metrics.loss'/);
    rejects({ config: 1 }, /unknown field 'config'/);
    rejects({ "": 1 }, /empty field name/);
    rejects({ "config.": 1 }, /field 'config.' needs a key after the prefix/);
    rejects({ "summaryMetrics.": { $gt: 1 } }, /needs a key/);
  });

  it("unknown operators", () => {
    rejects({ name: { $foo: 1 } }, /^filter: unknown operator '\$foo' on 'name'$/);
    rejects({ tags: { $all: ["a"] } }, /unknown operator '\$all' on 'tags'/);
    rejects({ name: { $and: [] } }, /unknown operator '\$and' on 'name'/);
    rejects({ $nor: [{ name: "x" }] }, /^filter: unknown operator '\$nor'$/);
    rejects({ $where: "1" }, /unknown operator '\$where'/);
  });

  it("leaf operators outside a field", () => {
    rejects({ $eq: 1 }, /operator '\$eq' must be applied to a field/);
    rejects({ $or: [{ $regex: "x" }] }, /operator '\$regex' must be applied to a field/);
  });

  it("boolean operator operands", () => {
    rejects({ $and: { name: "x" } }, /\$and takes a non-empty array of filter objects/);
    rejects({ $and: [] }, /\$and takes a non-empty array/);
    rejects({ $or: [] }, /\$or takes a non-empty array/);
    rejects({ $or: "x" }, /\$or takes a non-empty array/);
    rejects({ $or: [{ name: "x" }, 3] }, /expected a JSON object/);
    rejects({ $and: [[{ name: "x" }]] }, /expected a JSON object/);
    rejects({ $not: [{ name: "x" }] }, /\$not takes one filter object/);
    rejects({ $not: "x" }, /\$not takes one filter object/);
    rejects({ name: { $not: "x" } }, /\$not on 'name' takes an operator object/);
    rejects({ name: { $not: { a: 1 } } }, /\$not on 'name' takes an operator object/);
  });

  it("mixing operators with plain keys", () => {
    rejects({ "config.x": { $gt: 1, a: 2 } }, /'config.x' mixes operators with plain keys/);
  });

  it("errors inside nested filters are reported too", () => {
    rejects({ $or: [{ name: "x" }, { $and: [{ bogus: 1 }] }] }, /unknown field 'bogus'/);
    rejects({ $not: { name: { $gt: 1 } } }, /expects a string/);
  });

  it(`limits nesting to ${MAX_FILTER_DEPTH} levels`, () => {
    const nest = (levels: number): unknown => {
      let filter: unknown = { name: "x" };
      for (let i = 1; i < levels; i++) filter = { $and: [filter] };
      return filter;
    };
    assert.doesNotThrow(() => compileRunFilter(nest(MAX_FILTER_DEPTH)));
    rejects(nest(MAX_FILTER_DEPTH + 1), /nested deeper than 16 levels/);

    let notChain: unknown = { name: "x" };
    for (let i = 0; i < 40; i++) notChain = { $not: notChain };
    rejects(notChain, /nested deeper than 16 levels/);

    let fieldNot: Record<string, unknown> = { $eq: "x" };
    for (let i = 0; i < 40; i++) fieldNot = { $not: fieldNot };
    rejects({ name: fieldNot }, /nested deeper than 16 levels/);
  });

  it(`limits the filter to ${MAX_FILTER_NODES} nodes`, () => {
    const wide = { $or: Array.from({ length: MAX_FILTER_NODES }, (_, i) => ({ name: `run-${i}` })) };
    rejects(wide, /more than 1000 terms/);
    rejects({ name: { $in: Array.from({ length: MAX_FILTER_NODES + 1 }, (_, i) => `run-${i}`) } }, /more than 1000 terms/);
    assert.doesNotThrow(() => compileRunFilter({ name: { $in: Array.from({ length: 500 }, (_, i) => `run-${i}`) } }));
  });
});
