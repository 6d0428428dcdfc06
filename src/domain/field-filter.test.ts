import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DomainError } from "./errors.js";
import {
  compileFieldFilters,
  FIELD_FILTER_DATA_TYPES,
  FIELD_FILTER_OPERATORS,
  FIELD_FILTER_SOURCES,
  MAX_FIELD_FILTER_TERMS,
  type FieldFilterDataType,
  type FieldFilterOperator,
} from "./field-filter.js";
import type { Json } from "./merge.js";
import type { FilterableRun } from "./run-view.js";

const T0 = Date.parse("2024-03-01T12:00:00.000Z");

const RUN: FilterableRun = {
  name: "run",
  status: "COMPLETED",
  tags: [],
  createdAt: T0,
  updatedAt: T0,
  heartbeatAt: null,
  config: {
    "optim.name": "AdamW",
    "optim.lr": 0.001,
    "optim.lr_text": "1e-3",
    "model.pretrained": true,
    layers: [64, 128],
    "data.split": null,
    "schedule.start": "2024-03-01T12:00:00Z",
    "schedule.stamp": T0,
    "schedule.bad": "soon",
    size: 3,
  },
  systemMetadata: { hostname: "gpu-node-07", "gpu.count": 8, "gpu.type": "A100" },
  summaryMetrics: {},
};

function term(dataType: FieldFilterDataType, key: string, operator: FieldFilterOperator, values: Json[], source = "config") {
  return { source, key, dataType, operator, values };
}

function holds(dataType: FieldFilterDataType, key: string, operator: FieldFilterOperator, values: Json[], source = "config"): boolean {
  return compileFieldFilters([term(dataType, key, operator, values, source)])(RUN);
}

function rejects(terms: unknown, message: RegExp): void {
  assert.throws(
    () => compileFieldFilters(terms),
    (error: unknown) => {
      assert.ok(error instanceof DomainError, `expected DomainError, got ${String(error)}`);
      assert.equal(error.code, "INVALID_INPUT");
      assert.match(error.message, message);
      return true;
    },
  );
}

describe("field filter grammar", () => {
  it("lists exactly the operators of docs/semantics.md (Run filters), data types and sources", () => {
    assert.deepEqual(
      [...FIELD_FILTER_OPERATORS],
      [
        "contains",
        "does not contain",
        "equals",
        "is",
        "is not",
        "starts with",
        "ends with",
        "regex",
        "is greater than",
        ">",
        "is less than",
        "<",
        "is greater than or equal to",
        ">=",
        "is less than or equal to",
        "<=",
        "is between",
        "is not between",
        "is before",
        "is on or before",
        "is after",
        "is on or after",
        "is any of",
        "is none of",
        "exists",
        "not exists",
      ],
    );
    assert.deepEqual([...FIELD_FILTER_DATA_TYPES], ["text", "number", "date", "option"]);
    assert.deepEqual([...FIELD_FILTER_SOURCES], ["config", "systemMetadata"]);
  });

  it("every operator applies to at least one data type", () => {
    for (const operator of FIELD_FILTER_OPERATORS) {
      const arity = operator.includes("exists") ? 0 : operator.includes("between") ? 2 : 1;
      const fits = FIELD_FILTER_DATA_TYPES.filter((dataType) =>
        [1, "2024-01-01"].some((value) => {
          try {
            compileFieldFilters([term(dataType, "k", operator, Array<Json>(arity).fill(value))]);
            return true;
          } catch {
            return false;
          }
        }),
      );
      assert.ok(fits.length > 0, operator);
    }
  });

  it("an empty list matches every run", () => assert.equal(compileFieldFilters([])(RUN), true));

  it("every term must hold", () => {
    const both = compileFieldFilters([
      term("text", "optim.name", "is", ["AdamW"]),
      term("number", "gpu.count", ">", [4], "systemMetadata"),
    ]);
    assert.equal(both(RUN), true);
    const one = compileFieldFilters([term("text", "optim.name", "is", ["AdamW"]), term("number", "gpu.count", ">", [8], "systemMetadata")]);
    assert.equal(one(RUN), false);
  });

  it("reads systemMetadata separately from config", () => {
    assert.equal(holds("text", "hostname", "contains", ["node"], "systemMetadata"), true);
    assert.equal(holds("text", "hostname", "exists", [], "config"), false);
  });

  it("ignores properties beyond the five fields", () => {
    assert.equal(compileFieldFilters([{ ...term("text", "optim.name", "is", ["AdamW"]), id: "ui-1" }])(RUN), true);
  });
});

describe("fieldFilters: text", () => {
  it("contains / starts with / ends with are case-insensitive", () => {
    assert.equal(holds("text", "optim.name", "contains", ["damw"]), true);
    assert.equal(holds("text", "optim.name", "contains", ["DAM"]), true);
    assert.equal(holds("text", "optim.name", "contains", ["sgd"]), false);
    assert.equal(holds("text", "optim.name", "starts with", ["adam"]), true);
    assert.equal(holds("text", "optim.name", "starts with", ["damw"]), false);
    assert.equal(holds("text", "optim.name", "ends with", ["MW"]), true);
    assert.equal(holds("text", "optim.name", "ends with", ["adam"]), false);
  });

  it("does not contain is the negation, and matches runs without the key", () => {
    assert.equal(holds("text", "optim.name", "does not contain", ["ADAM"]), false);
    assert.equal(holds("text", "optim.name", "does not contain", ["sgd"]), true);
    assert.equal(holds("text", "missing", "does not contain", ["sgd"]), true);
    assert.equal(holds("text", "missing", "contains", ["sgd"]), false);
  });

  it("equals / is / is not are exact", () => {
    assert.equal(holds("text", "optim.name", "equals", ["AdamW"]), true);
    assert.equal(holds("text", "optim.name", "equals", ["adamw"]), false);
    assert.equal(holds("text", "optim.name", "is", ["AdamW"]), true);
    assert.equal(holds("text", "optim.name", "is", ["Adam"]), false);
    assert.equal(holds("text", "optim.name", "is not", ["adamw"]), true);
    assert.equal(holds("text", "optim.name", "is not", ["AdamW"]), false);
    assert.equal(holds("text", "missing", "is not", ["AdamW"]), true);
    assert.equal(holds("text", "missing", "is", ["AdamW"]), false);
  });

  it("regex is case-sensitive, unanchored and linear-time", () => {
    assert.equal(holds("text", "optim.name", "regex", ["^Adam"]), true);
    assert.equal(holds("text", "optim.name", "regex", ["^adam"]), false);
    assert.equal(holds("text", "optim.name", "regex", ["(?i)^adam"]), true);
    assert.equal(holds("text", "hostname", "regex", ["node-\\d+$"], "systemMetadata"), true);
    assert.equal(holds("text", "missing", "regex", [""]), false);
    const long: FilterableRun = { ...RUN, config: { s: `${"a".repeat(100_000)}!` } };
    assert.equal(compileFieldFilters([term("text", "s", "regex", ["(a+)+$"])])(long), false);
  });

  it("non-string stored values are compared through their text", () => {
    assert.equal(holds("text", "optim.lr", "contains", ["001"]), true);
    assert.equal(holds("text", "optim.lr", "is", ["0.001"]), true);
    assert.equal(holds("text", "optim.lr", "is", [0.001]), true, "number values are text too");
    assert.equal(holds("text", "model.pretrained", "is", ["true"]), true);
    assert.equal(holds("text", "model.pretrained", "starts with", ["TR"]), true);
    assert.equal(holds("text", "layers", "is", ["[64,128]"]), true);
    assert.equal(holds("text", "layers", "contains", ["128"]), true);
    assert.equal(holds("text", "size", "regex", ["^3$"]), true);
  });

  it("a stored null has no text; only exact operators with null match it", () => {
    assert.equal(holds("text", "data.split", "contains", [""]), false);
    assert.equal(holds("text", "data.split", "does not contain", ["x"]), true);
    assert.equal(holds("text", "data.split", "is", [null]), true);
    assert.equal(holds("text", "data.split", "is", ["null"]), false);
    assert.equal(holds("text", "data.split", "is not", [null]), false);
    assert.equal(holds("text", "optim.name", "is not", [null]), true);
    assert.equal(holds("text", "data.split", "regex", [""]), false);
  });

  it("exists / not exists test the key, even when the value is null", () => {
    assert.equal(holds("text", "optim.name", "exists", []), true);
    assert.equal(holds("text", "data.split", "exists", []), true);
    assert.equal(holds("text", "missing", "exists", []), false);
    assert.equal(holds("text", "missing", "not exists", []), true);
    assert.equal(holds("text", "optim.name", "not exists", []), false);
  });

  it("prototype member names are missing keys", () => {
    assert.equal(holds("text", "constructor", "exists", []), false);
    assert.equal(holds("text", "__proto__", "not exists", []), true);
  });

  it("rejects operators that do not fit text, and bad values", () => {
    for (const operator of [
      ">",
      "is greater than",
      "<",
      ">=",
      "<=",
      "is less than",
      "is between",
      "is not between",
      "is before",
      "is after",
      "is any of",
      "is none of",
    ] as const) {
      rejects(
        [term("text", "k", operator, [1, 2])],
        new RegExp(`^fieldFilters\\[0\\]: operator '${operator}' does not apply to dataType 'text'$`),
      );
    }
    rejects([term("text", "k", "contains", [null])], /fieldFilters\[0\]: value must be a string/);
    rejects([term("text", "k", "contains", [["a"]])], /value must be a string/);
    rejects([term("text", "k", "is", [{ a: 1 }])], /values must be strings, numbers, booleans or null/);
    rejects([term("text", "k", "regex", [1])], /fieldFilters\[0\]: regex takes a pattern string/);
    rejects([term("text", "k", "regex", ["(a)\\1"])], /fieldFilters\[0\]: regex: backreferences are not supported/);
    rejects([term("text", "k", "regex", ["a(?=b)"])], /fieldFilters\[0\]: regex: invalid or unsupported pattern.*lookaround/);
    rejects([term("text", "k", "regex", ["("])], /invalid or unsupported pattern/);
  });
});

describe("fieldFilters: number", () => {
  const cases: [FieldFilterOperator, number, boolean][] = [
    [">", 4, true],
    [">", 8, false],
    ["is greater than", 7.5, true],
    ["is greater than", 8, false],
    ["<", 9, true],
    ["<", 8, false],
    ["is less than", 8.5, true],
    ["is less than", 8, false],
    [">=", 8, true],
    [">=", 9, false],
    ["is greater than or equal to", 8, true],
    ["is greater than or equal to", 8.1, false],
    ["<=", 8, true],
    ["<=", 7, false],
    ["is less than or equal to", 8, true],
    ["is less than or equal to", 7.9, false],
    ["equals", 8, true],
    ["equals", 7, false],
    ["is", 8, true],
    ["is not", 8, false],
    ["is not", 7, true],
  ];
  for (const [operator, value, expected] of cases) {
    it(`gpu.count (8) ${operator} ${value}: ${expected}`, () =>
      assert.equal(holds("number", "gpu.count", operator, [value], "systemMetadata"), expected));
  }

  it("is between / is not between are inclusive at both ends, in either order", () => {
    assert.equal(holds("number", "size", "is between", [3, 5]), true);
    assert.equal(holds("number", "size", "is between", [1, 3]), true);
    assert.equal(holds("number", "size", "is between", [5, 3]), true);
    assert.equal(holds("number", "size", "is between", [4, 5]), false);
    assert.equal(holds("number", "size", "is not between", [3, 5]), false);
    assert.equal(holds("number", "size", "is not between", [4, 5]), true);
    assert.equal(holds("number", "missing", "is not between", [4, 5]), true);
    assert.equal(holds("number", "missing", "is between", [0, 5]), false);
  });

  it("numeric strings count as numbers, in values and in stored values", () => {
    assert.equal(holds("number", "size", ">", ["2.5"]), true);
    assert.equal(holds("number", "optim.lr_text", "equals", [0.001]), true);
    assert.equal(holds("number", "optim.lr_text", "<", [0.01]), true);
  });

  it("non-numeric stored values match only the negations", () => {
    assert.equal(holds("number", "optim.name", ">", [0]), false);
    assert.equal(holds("number", "model.pretrained", "equals", [1]), false);
    assert.equal(holds("number", "data.split", "<", [1]), false);
    assert.equal(holds("number", "layers", ">", [0]), false);
    assert.equal(holds("number", "optim.name", "is not", [0]), true);
    assert.equal(holds("number", "optim.name", "is not between", [0, 1]), true);
    assert.equal(holds("number", "missing", "is not", [0]), true);
  });

  it("exists / not exists", () => {
    assert.equal(holds("number", "size", "exists", []), true);
    assert.equal(holds("number", "size", "not exists", []), false);
  });

  it("rejects non-numeric values, wrong counts and operators that do not fit", () => {
    rejects([term("number", "k", ">", ["abc"])], /fieldFilters\[0\]: value 'abc' is not a number/);
    rejects([term("number", "k", ">", [""])], /value '' is not a number/);
    rejects([term("number", "k", "is", [null])], /value null is not a number/);
    rejects([term("number", "k", "<=", [true])], /value true is not a number/);
    rejects([term("number", "k", "is between", [1, "x"])], /value 'x' is not a number/);
    rejects([term("number", "k", "is between", [1])], /operator 'is between' takes exactly two values, got 1/);
    rejects([term("number", "k", "is not between", [1, 2, 3])], /takes exactly two values, got 3/);
    rejects([term("number", "k", ">", [])], /operator '>' takes exactly one value, got 0/);
    rejects([term("number", "k", ">", [1, 2])], /takes exactly one value, got 2/);
    for (const operator of [
      "contains",
      "does not contain",
      "starts with",
      "ends with",
      "regex",
      "is before",
      "is on or after",
      "is any of",
      "is none of",
    ] as const) {
      rejects([term("number", "k", operator, [1])], new RegExp(`operator '${operator}' does not apply to dataType 'number'`));
    }
  });
});

describe("fieldFilters: date", () => {
  const at = "2024-03-01T12:00:00Z";
  const before = "2024-03-01T11:59:59.999Z";
  const after = "2024-03-01T12:00:00.001Z";

  for (const key of ["schedule.start", "schedule.stamp"]) {
    it(`${key} compares as an instant`, () => {
      assert.equal(holds("date", key, "is before", [after]), true);
      assert.equal(holds("date", key, "is before", [at]), false);
      assert.equal(holds("date", key, "is on or before", [at]), true);
      assert.equal(holds("date", key, "is on or before", [before]), false);
      assert.equal(holds("date", key, "is after", [before]), true);
      assert.equal(holds("date", key, "is after", [at]), false);
      assert.equal(holds("date", key, "is on or after", [at]), true);
      assert.equal(holds("date", key, "is on or after", [after]), false);
      assert.equal(holds("date", key, "equals", [T0]), true);
      assert.equal(holds("date", key, "is", ["2024-03-01T13:00:00+01:00"]), true);
      assert.equal(holds("date", key, "is", [after]), false);
      assert.equal(holds("date", key, "is not", [after]), true);
      assert.equal(holds("date", key, "is not", [at]), false);
      assert.equal(holds("date", key, "is between", ["2024-03-01", "2024-03-02"]), true);
      assert.equal(holds("date", key, "is between", [at, T0 + 1000]), true, "inclusive");
      assert.equal(holds("date", key, "is between", [after, "2024-03-02"]), false);
      assert.equal(holds("date", key, "is not between", [after, "2024-03-02"]), true);
      assert.equal(holds("date", key, "is not between", [before, after]), false);
    });
  }

  it("unparseable or missing stored dates match only the negations", () => {
    assert.equal(holds("date", "schedule.bad", "is before", [at]), false);
    assert.equal(holds("date", "schedule.bad", "is after", [at]), false);
    assert.equal(holds("date", "schedule.bad", "is not", [at]), true);
    assert.equal(holds("date", "missing", "is on or after", [0]), false);
    assert.equal(holds("date", "missing", "is not between", [0, T0]), true);
    assert.equal(holds("date", "schedule.bad", "exists", []), true);
    assert.equal(holds("date", "missing", "not exists", []), true);
  });

  it("rejects invalid dates, wrong counts and operators that do not fit", () => {
    rejects(
      [term("date", "k", "is before", ["tomorrow"])],
      /fieldFilters\[0\]: value 'tomorrow' is not epoch milliseconds or an ISO-8601 date/,
    );
    rejects([term("date", "k", "is after", ["2024-02-30"])], /is not epoch milliseconds or an ISO-8601 date/);
    rejects([term("date", "k", "is", [null])], /value null is not epoch milliseconds/);
    rejects([term("date", "k", "is between", ["2024-01-01", "nope"])], /value 'nope'/);
    rejects([term("date", "k", "is between", ["2024-01-01"])], /takes exactly two values, got 1/);
    rejects([term("date", "k", "exists", ["2024-01-01"])], /operator 'exists' takes no values, got 1/);
    for (const operator of ["contains", "regex", ">", "is greater than", "<=", "is any of", "is none of", "starts with"] as const) {
      rejects([term("date", "k", operator, ["2024-01-01"])], /does not apply to dataType 'date'/);
    }
  });
});

describe("fieldFilters: option", () => {
  it("is / equals / is not compare exactly", () => {
    assert.equal(holds("option", "gpu.type", "is", ["A100"], "systemMetadata"), true);
    assert.equal(holds("option", "gpu.type", "is", ["a100"], "systemMetadata"), false);
    assert.equal(holds("option", "gpu.type", "equals", ["A100"], "systemMetadata"), true);
    assert.equal(holds("option", "gpu.type", "is not", ["A100"], "systemMetadata"), false);
    assert.equal(holds("option", "gpu.type", "is not", ["H100"], "systemMetadata"), true);
    assert.equal(holds("option", "missing", "is not", ["H100"]), true);
  });

  it("is any of / is none of", () => {
    assert.equal(holds("option", "optim.name", "is any of", ["SGD", "AdamW"]), true);
    assert.equal(holds("option", "optim.name", "is any of", ["SGD", "Adam"]), false);
    assert.equal(holds("option", "optim.name", "is none of", ["SGD", "Adam"]), true);
    assert.equal(holds("option", "optim.name", "is none of", ["SGD", "AdamW"]), false);
    assert.equal(holds("option", "missing", "is none of", ["SGD"]), true);
    assert.equal(holds("option", "missing", "is any of", ["SGD"]), false);
  });

  it("numbers, booleans and null are options too", () => {
    assert.equal(holds("option", "size", "is", [3]), true);
    assert.equal(holds("option", "size", "is", ["3"]), true);
    assert.equal(holds("option", "model.pretrained", "is any of", [false, true]), true);
    assert.equal(holds("option", "data.split", "is", [null]), true);
    assert.equal(holds("option", "data.split", "is any of", ["train", null]), true);
    assert.equal(holds("option", "missing", "is", [null]), false);
  });

  it("exists / not exists", () => {
    assert.equal(holds("option", "size", "exists", []), true);
    assert.equal(holds("option", "size", "not exists", []), false);
  });

  it("rejects operators that do not fit, and wrong counts", () => {
    for (const operator of [
      "contains",
      "does not contain",
      "starts with",
      "ends with",
      "regex",
      ">",
      "is between",
      "is before",
      "is on or after",
    ] as const) {
      rejects([term("option", "k", operator, ["a", "b"])], /does not apply to dataType 'option'/);
    }
    rejects([term("option", "k", "is any of", [])], /operator 'is any of' takes at least one value, got 0/);
    rejects([term("option", "k", "is none of", [])], /at least one value/);
    rejects([term("option", "k", "is", ["a", "b"])], /takes exactly one value, got 2/);
    rejects([term("option", "k", "not exists", [null])], /takes no values, got 1/);
    rejects([term("option", "k", "is any of", [["a"]])], /values must be strings, numbers, booleans or null/);
  });
});

describe("fieldFilters: rejected shapes", () => {
  it("the input must be an array of objects", () => {
    rejects({}, /^fieldFilters: expected a JSON array of terms$/);
    rejects(null, /expected a JSON array/);
    rejects("[]", /expected a JSON array/);
    rejects([null], /^fieldFilters\[0\]: expected an object/);
    rejects([[]], /fieldFilters\[0\]: expected an object/);
  });

  it("all five fields are required", () => {
    const full = term("text", "k", "is", ["a"]);
    for (const field of ["source", "key", "dataType", "operator", "values"] as const) {
      const { [field]: _omitted, ...partial } = full;
      rejects([full, partial], new RegExp(`^fieldFilters\\[1\\]: missing '${field}'$`));
    }
  });

  it("each field is validated", () => {
    rejects([term("text", "k", "is", ["a"], "summaryMetrics")], /fieldFilters\[0\]: unknown source 'summaryMetrics'/);
    rejects([{ ...term("text", "k", "is", ["a"]), source: 3 }], /unknown source 3/);
    rejects([{ ...term("text", "k", "is", ["a"]), key: "" }], /key must be a non-empty string/);
    rejects([{ ...term("text", "k", "is", ["a"]), key: 5 }], /key must be a non-empty string/);
    rejects(
      [{ ...term("text", "k", "is", ["a"]), dataType: "boolean" }],
      /unknown dataType 'boolean' \(expected text, number, date, option\)/,
    );
    rejects([{ ...term("text", "k", "is", ["a"]), operator: "like" }], /fieldFilters\[0\]: unknown operator 'like'/);
    rejects([{ ...term("text", "k", "is", ["a"]), operator: "IS" }], /unknown operator 'IS'/);
    rejects([{ ...term("text", "k", "is", ["a"]), values: "a" }], /values must be an array/);
    rejects([{ ...term("text", "k", "is", ["a"]), values: null }], /values must be an array/);
  });

  it("names the failing term by index", () => {
    rejects([term("text", "a", "is", ["x"]), term("text", "b", "is", ["x"]), term("number", "c", ">", ["x"])], /^fieldFilters\[2\]: /);
  });

  it(`limits the list to ${MAX_FIELD_FILTER_TERMS} terms`, () => {
    const terms = Array.from({ length: MAX_FIELD_FILTER_TERMS + 1 }, () => term("text", "k", "exists", []));
    rejects(terms, /more than 100 terms/);
    assert.doesNotThrow(() => compileFieldFilters(terms.slice(1)));
  });
});
