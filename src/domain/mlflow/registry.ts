import { doesNotExist, invalidParameter } from "./errors.js";
import { applyTags, checkKey, checkValue } from "./model.js";
import {
  type AttributeSet,
  type Clause,
  compareSortValues,
  compileClause,
  decodeSearchToken,
  encodeSearchToken,
  type OrderTerm,
  type SortValue,
} from "./search.js";

/**
 * MLflow's model registry rules (docs/api.md, "MLflow's REST API: the model registry"), as MLflow's
 * server applies them (mlflow/utils/validation.py, mlflow/store/model_registry/sqlalchemy_store.py):
 * names, version numbers, stages, aliases, tags and search. Pure: the service reads and writes.
 */

export const REGISTRY_LIMITS = {
  nameLength: 256,
  aliasLength: 255,
  tagKeyLength: 250,
  tagValueLength: 5000,
  searchModelsMaxResults: 1000,
  searchModelsDefault: 100,
  searchVersionsMaxResults: 200_000,
  searchVersionsDefault: 10_000,
} as const;

export const STAGES = ["None", "Staging", "Production", "Archived"] as const;
/** The stages get_latest_versions and archive_existing_versions know as active. */
export const ACTIVE_STAGES = ["Staging", "Production"] as const;

/** A stage as MLflow spells it, from any case ("production" → "Production"). */
export function canonicalStage(stage: string): string {
  const found = STAGES.find((s) => s.toLowerCase() === stage.toLowerCase());
  if (!found) throw invalidParameter(`Invalid Model Version stage: ${stage}. Value must be one of ${STAGES.join(", ")}.`);
  return found;
}

export function checkModelName(name: string | undefined): string {
  if (name === undefined || name === "") throw invalidParameter("Registered model name cannot be empty.");
  if (name.length > REGISTRY_LIMITS.nameLength)
    throw invalidParameter(`Registered model name exceeds the maximum length of ${REGISTRY_LIMITS.nameLength} characters`);
  return name;
}

/** A version number as MLflow's client sends it (a string of digits). */
export function parseVersion(value: unknown): number {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^[-+]?\d+$/.test(text) || !Number.isSafeInteger(Number(text)))
    throw invalidParameter(`Model version must be an integer, got '${String(value)}'`);
  return Number(text);
}

export function checkAlias(alias: string | undefined): string {
  if (alias === undefined || alias === "") throw invalidParameter("Registered model alias name cannot be empty.");
  if (!/^[\w-]*$/u.test(alias))
    throw invalidParameter(`Invalid alias name: '${alias}'. Names may only contain alphanumerics, underscores (_), and dashes (-).`);
  if (alias.length > REGISTRY_LIMITS.aliasLength)
    throw invalidParameter(`Registered model alias name exceeds the maximum length of ${REGISTRY_LIMITS.aliasLength} characters`);
  if (alias.toLowerCase() === "latest") throw invalidParameter("'latest' alias name (case insensitive) is reserved.");
  if (/^[vV]\d+$/.test(alias)) throw invalidParameter(`Version alias name '${alias}' is reserved.`);
  return alias;
}

/** A registry tag (a model's or a version's): MLflow's key rule, a value of at most 5,000 characters. */
export function registryTag(key: unknown, value: unknown, what: string): [string, string] {
  const checked = checkKey(key, `${what}.key`);
  return [checked, checkValue(value ?? "", `${what}.value`, REGISTRY_LIMITS.tagValueLength)];
}

export const setTag = (tags: [string, string][], tag: [string, string]) => applyTags(tags, [tag]);
/** Deleting a tag that is not there changes nothing, as on MLflow's server. */
export const deleteTag = (tags: [string, string][], key: string) => applyTags(tags, [], [key]);

interface Versioned {
  version: number;
  stage: string;
}

/** The version of that number, or RESOURCE_DOES_NOT_EXIST in MLflow's words. */
export function versionOf<V extends Versioned>(versions: readonly V[], name: string, version: number): V {
  const found = versions.find((v) => v.version === version);
  if (!found) throw doesNotExist(`Model Version (name=${name}, version=${version}) not found`);
  return found;
}

/**
 * transition_model_version_stage: the version takes the stage; with archive_existing_versions (only
 * for an active stage) every other version in that stage becomes Archived.
 */
export function transitionStage<V extends Versioned>(
  versions: readonly V[],
  name: string,
  version: number,
  stage: string,
  archiveExisting: boolean,
): V[] {
  const target = canonicalStage(stage);
  if (archiveExisting && !(ACTIVE_STAGES as readonly string[]).includes(target))
    throw invalidParameter(
      `Model version transition cannot archive existing model versions because '${stage}' is not an Active stage. Valid stages are ${JSON.stringify(ACTIVE_STAGES).replaceAll('"', "'").replaceAll(",", ", ")}`,
    );
  versionOf(versions, name, version);
  return versions.map((v) =>
    v.version === version ? { ...v, stage: target } : archiveExisting && v.stage === target ? { ...v, stage: "Archived" } : v,
  );
}

/**
 * get_latest_versions: the highest version in each of the stages asked (every stage when none), in
 * the order MLflow's server lists them: by the lowest version of each stage (versions ascending,
 * each stage in the place it first appeared).
 */
export function latestVersions<V extends Versioned>(versions: readonly V[], stages: readonly string[]): V[] {
  const wanted = new Set((stages.length === 0 ? [...STAGES] : stages).map(canonicalStage));
  const latest = new Map<string, V>();
  for (const v of [...versions].sort((a, b) => a.version - b.version)) if (wanted.has(v.stage)) latest.set(v.stage, v);
  return [...latest.values()];
}

/** Aliases after set_registered_model_alias: an alias names one version; setting it again moves it. */
export function setAlias(aliases: readonly [string, number][], alias: string, version: number): [string, number][] {
  const next = aliases.map(([a, v]): [string, number] => [a, a === alias ? version : v]);
  return next.some(([a]) => a === alias) ? next : [...next, [alias, version]];
}

export const deleteAlias = (aliases: readonly [string, number][], alias: string): [string, number][] =>
  aliases.filter(([a]) => a !== alias);

/** The aliases of one version, in the order set. */
export const aliasesOf = (aliases: readonly [string, number][], version: number) =>
  aliases.filter(([, v]) => v === version).map(([a]) => a);

/** The version an alias names, or INVALID_PARAMETER_VALUE in MLflow's words. */
export function aliasVersion(aliases: readonly [string, number][], alias: string): number {
  const found = aliases.find(([a]) => a === alias);
  if (!found) throw invalidParameter(`Registered model alias ${alias} not found.`);
  return found[1];
}

/**
 * Where a version's files are read: its source, or for a `models:/<name>/<version>` source that
 * version's own location (MLflow's server resolves it when the version is created). Sources that
 * are local paths, or climb with `..`, are refused as MLflow's server refuses them.
 */
export function checkSource(
  source: string,
): { kind: "uri" } | { kind: "model"; name: string; version: number } | { kind: "logged"; modelId: string } {
  let decoded = source;
  for (let next = safeDecode(decoded); next !== decoded; next = safeDecode(decoded)) decoded = next;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(source)?.[1]?.toLowerCase();
  if (scheme === undefined || scheme === "file" || /^[A-Za-z]:[\\/]/.test(source))
    throw invalidParameter(
      `Invalid model version source: '${source}'. To use a local path as a model version source, the run_id request parameter has to be specified and the local path has to be contained within the artifact directory of the run specified by the run_id.`,
    );
  if (decoded.includes("\u0000") || decoded.split(/[/\\]/).some((part) => part === ".."))
    throw invalidParameter(
      `Invalid model version source: '${source}'. If supplying a source as an http, https, local file path, ftp, objectstore, or mlflow-artifacts uri, an absolute path must be provided without relative path references present. Please provide an absolute path.`,
    );
  if (scheme !== "models") return { kind: "uri" };
  // MLflow 3's register_model names a logged model: models:/m-<32 hex>.
  const logged = /^models:\/+(m-[0-9a-f]{32})\/*$/.exec(source);
  if (logged) return { kind: "logged", modelId: logged[1]! };
  const match = /^models:\/+([^/]+)\/(\d+)\/*$/.exec(source);
  if (!match)
    throw invalidParameter(`Unable to fetch model from model URI source artifact location '${source}': expected models:/<name>/<version>`);
  return { kind: "model", name: match[1]!, version: Number(match[2]) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

// --- search_registered_models and search_model_versions ---

export const REGISTERED_MODEL_FILTER: AttributeSet = { names: new Map([["name", "name"]]), numeric: new Set(), datasets: false };
export const REGISTERED_MODEL_ORDER: AttributeSet = {
  names: new Map([
    ["name", "name"],
    ["creation_timestamp", "creation_timestamp"],
    ["timestamp", "creation_timestamp"],
    ["last_updated_timestamp", "last_updated_timestamp"],
  ]),
  numeric: new Set(["creation_timestamp", "last_updated_timestamp"]),
  datasets: false,
};
export const MODEL_VERSION_FILTER: AttributeSet = {
  names: new Map([
    ["name", "name"],
    ["run_id", "run_id"],
    ["source_path", "source_path"],
    ["version_number", "version_number"],
  ]),
  numeric: new Set(["version_number"]),
  datasets: false,
};
export const MODEL_VERSION_ORDER: AttributeSet = {
  names: new Map([
    ["name", "name"],
    ["version_number", "version_number"],
    ["creation_timestamp", "creation_timestamp"],
    ["timestamp", "creation_timestamp"],
    ["last_updated_timestamp", "last_updated_timestamp"],
  ]),
  numeric: new Set(["version_number", "creation_timestamp", "last_updated_timestamp"]),
  datasets: false,
};

/** Registry searches filter on attributes and tags only. */
export function checkRegistryClauses(clauses: readonly Clause[], what: string): void {
  for (const clause of clauses)
    if (clause.entity !== "attribute" && clause.entity !== "tag")
      throw invalidParameter(`Invalid entity type '${clause.entity}' in a ${what} filter: expected tags or an attribute`);
}

/**
 * The model a registry filter names by `name = '…'`, if any: a search then reads that model's versions
 * alone (the clauses still decide, so this only narrows what is read).
 */
export function nameNamed(clauses: readonly Clause[]): string | undefined {
  const clause = clauses.find((c) => c.entity === "attribute" && c.key === "name" && c.comparator === "=" && typeof c.value === "string");
  return clause?.value as string | undefined;
}

/** Registry searches order by attributes only, each named once (MLflow's `order_by` rules for the registry). */
export function checkRegistryOrder(terms: readonly OrderTerm[]): void {
  const seen = new Set<string>();
  for (const term of terms) {
    if (term.entity !== "attribute")
      throw invalidParameter(`Invalid order by key '${term.entity}s.${term.key}' specified: only attributes order a registry search`);
    if (seen.has(term.key)) throw invalidParameter(`\`order_by\` contains duplicate fields: ${term.key}`);
    seen.add(term.key);
  }
}

export interface RegistrySearch<T> {
  items: readonly T[];
  clauses: readonly Clause[];
  terms: readonly OrderTerm[];
  /** A filter clause's or order term's value of an item; undefined when it has none. */
  valueOf(item: T, entity: string, key: string): string | number | undefined;
  /** Unique last keys after the terms, with their direction, so paging never repeats or skips. */
  tiebreak(item: T): { value: SortValue; ascending: boolean }[];
  maxResults: number;
  pageToken?: string;
}

/** One page of a registry search: filtered, ordered by the terms then the tiebreak; the token is the last item's key. */
export function searchPage<T>(search: RegistrySearch<T>): { page: T[]; nextPageToken?: string } {
  const tests = search.clauses.map((clause) => ({ clause, test: compileClause(clause) }));
  const directions = [...search.terms.map((t) => t.ascending)];
  const keyed = search.items
    .filter((item) => tests.every(({ clause, test }) => test(search.valueOf(item, clause.entity, clause.key))))
    .map((item) => {
      const tie = search.tiebreak(item);
      return {
        item,
        key: [...search.terms.map((t) => search.valueOf(item, t.entity, t.key) ?? null), ...tie.map((t) => t.value)],
        ascending: [...directions, ...tie.map((t) => t.ascending)],
      };
    });
  const compare = (a: readonly SortValue[], b: readonly SortValue[], ascending: readonly boolean[]) => {
    for (let i = 0; i < a.length; i++) {
      const c = compareSortValues(a[i]!, b[i]!, ascending[i]!);
      if (c !== 0) return c;
    }
    return 0;
  };
  keyed.sort((a, b) => compare(a.key, b.key, a.ascending));
  const length = keyed[0]?.key.length ?? search.terms.length;
  const after = keyed.length === 0 && search.pageToken ? undefined : decodeSearchToken(search.pageToken, length);
  const rest = after ? keyed.filter((k) => compare(k.key, after, k.ascending) > 0) : keyed;
  const page = rest.slice(0, search.maxResults);
  const last = page[page.length - 1];
  return {
    page: page.map((k) => k.item),
    nextPageToken: rest.length > search.maxResults && last ? encodeSearchToken(last.key) : undefined,
  };
}

/** The tag that marks a registered model (or version) as a prompt of MLflow 3's prompt registry. */
export const PROMPT_TAG = "mlflow.prompt.is_prompt";

/**
 * MLflow 3's rule for prompts in registry searches: its client adds `tag.mlflow.prompt.is_prompt != 'true'`
 * to every search, and its server reads that as "not a prompt" (an item without the tag included),
 * not as a tag comparison that only items with the tag pass. A search that asks for prompts
 * (`= 'true'` or `!= 'false'`) keeps its clauses as they are.
 */
export function promptRule(clauses: readonly Clause[]): { clauses: Clause[]; excludePrompts: boolean } {
  const onPrompt = clauses.filter((c) => c.entity === "tag" && c.key === PROMPT_TAG);
  const asksPrompts = onPrompt.some(
    (c) =>
      typeof c.value === "string" &&
      ((c.comparator === "=" && c.value.toLowerCase() === "true") || (c.comparator === "!=" && c.value.toLowerCase() === "false")),
  );
  if (asksPrompts) return { clauses: [...clauses], excludePrompts: false };
  return { clauses: clauses.filter((c) => !onPrompt.includes(c)), excludePrompts: true };
}

export const isPrompt = (tags: readonly [string, string][]) => tags.some(([k, v]) => k === PROMPT_TAG && v.toLowerCase() === "true");
