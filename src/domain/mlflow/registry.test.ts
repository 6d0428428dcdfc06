import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  aliasVersion,
  canonicalStage,
  checkAlias,
  checkSource,
  latestVersions,
  nameNamed,
  parseVersion,
  promptRule,
  searchPage,
  setAlias,
  transitionStage,
} from "./registry.js";
import { parseFilter } from "./search.js";
import { REGISTERED_MODEL_FILTER } from "./registry.js";

const code = (error: unknown) => (error as { errorCode?: string }).errorCode;
const refused = (rule: () => unknown) => assert.throws(rule, (error) => code(error) === "INVALID_PARAMETER_VALUE");

describe("MLflow's model registry rules", () => {
  it("stages: any case in, MLflow's spelling out; others refused", () => {
    assert.equal(canonicalStage("production"), "Production");
    assert.equal(canonicalStage("NONE"), "None");
    refused(() => canonicalStage("Deleted_Internal"));
  });

  it("version numbers are integers; aliases are word characters, not 'latest' nor a version alias", () => {
    assert.equal(parseVersion("3"), 3);
    refused(() => parseVersion("1.5"));
    refused(() => parseVersion("x"));
    assert.equal(checkAlias("champion-1"), "champion-1");
    for (const alias of ["", "Latest", "v2", "V10", "a b", "a.b", "x".repeat(256)]) refused(() => checkAlias(alias));
  });

  it("transition: the version takes the stage; archive_existing_versions archives the others in it, only for an active stage", () => {
    const versions = [
      { version: 1, stage: "Production" },
      { version: 2, stage: "Staging" },
      { version: 3, stage: "None" },
    ];
    assert.deepEqual(
      transitionStage(versions, "m", 3, "production", true).map((v) => v.stage),
      ["Archived", "Staging", "Production"],
    );
    assert.deepEqual(
      transitionStage(versions, "m", 3, "Production", false).map((v) => v.stage),
      ["Production", "Staging", "Production"],
    );
    refused(() => transitionStage(versions, "m", 3, "Archived", true));
    assert.throws(
      () => transitionStage(versions, "m", 9, "Staging", false),
      (error) => code(error) === "RESOURCE_DOES_NOT_EXIST",
    );
  });

  it("latest versions: the highest of each stage asked, every stage when none, stages in the order they first appear", () => {
    const versions = [
      { version: 3, stage: "None" },
      { version: 1, stage: "None" },
      { version: 2, stage: "Production" },
    ];
    assert.deepEqual(
      latestVersions(versions, []).map((v) => v.version),
      [3, 2],
    );
    assert.deepEqual(
      latestVersions(versions, ["staging"]).map((v) => v.version),
      [],
    );
  });

  it("aliases: one version each, moved when set again; an unknown alias is INVALID_PARAMETER_VALUE", () => {
    const aliases = setAlias(setAlias([], "a", 1), "b", 2);
    assert.deepEqual(setAlias(aliases, "a", 3), [
      ["a", 3],
      ["b", 2],
    ]);
    assert.equal(aliasVersion(aliases, "b"), 2);
    refused(() => aliasVersion(aliases, "c"));
  });

  it("sources: URIs kept, models:/<name>/<version> resolved, local paths and climbing paths refused", () => {
    assert.deepEqual(checkSource("mlflow-artifacts:/1/abc/artifacts/model"), { kind: "uri" });
    assert.deepEqual(checkSource("models:/m/2"), { kind: "model", name: "m", version: 2 });
    assert.deepEqual(
      checkSource(`models:/m-${"0".repeat(32)}`),
      { kind: "logged", modelId: `m-${"0".repeat(32)}` },
      "MLflow 3's logged model",
    );
    for (const source of [
      "/tmp/x",
      "relative/x",
      "file:///x",
      "s3://b/../x",
      "s3://b/%252E%252E/x",
      "http://h/a%00",
      "models:/m/Production",
    ])
      refused(() => checkSource(source));
  });

  it("MLflow 3's prompt clause excludes prompts and keeps models without the tag; asking for prompts is a plain filter", () => {
    const excluded = promptRule(parseFilter("name = 'a' AND tag.`mlflow.prompt.is_prompt` != 'true'", REGISTERED_MODEL_FILTER));
    assert.deepEqual([excluded.clauses.length, excluded.excludePrompts], [1, true]);
    const asked = promptRule(parseFilter("tags.`mlflow.prompt.is_prompt` = 'true'", REGISTERED_MODEL_FILTER));
    assert.deepEqual([asked.clauses.length, asked.excludePrompts], [1, false]);
  });

  it("search pages: ordered by the terms then the tiebreak; each token continues where the last page ended", () => {
    const items = ["d", "a", "c", "b", "e"];
    const page = (pageToken?: string) =>
      searchPage({
        items,
        clauses: [],
        terms: [],
        valueOf: (item) => item,
        tiebreak: (item) => [{ value: item, ascending: true }],
        maxResults: 2,
        pageToken,
      });
    const first = page();
    const second = page(first.nextPageToken);
    const third = page(second.nextPageToken);
    assert.deepEqual([first.page, second.page, third.page, third.nextPageToken], [["a", "b"], ["c", "d"], ["e"], undefined]);
    refused(() => page("garbage"));
  });

  it("names the model a filter pins by name equality, and no other", () => {
    const clause = (key: string, comparator: "=" | "LIKE", value: string) => ({ entity: "attribute" as const, key, comparator, value });
    assert.equal(nameNamed([clause("run_id", "=", "r"), clause("name", "=", "m")]), "m");
    assert.equal(nameNamed([clause("name", "LIKE", "m%")]), undefined);
    assert.equal(nameNamed([{ entity: "tag", key: "name", comparator: "=", value: "m" }]), undefined);
  });
});
