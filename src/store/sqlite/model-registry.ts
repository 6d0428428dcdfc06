import {
  MODEL_VERSION_SELECT,
  type ModelVersionRow,
  REGISTERED_MODEL_SELECT,
  type RegisteredModelRow,
  toModelVersion,
  toRegisteredModel,
} from "../registry-rows.js";
import type { ModelVersion, RegisteredModel } from "../store.js";
import { type ModelRegistryOperations, modelVersionValues } from "../workflows/model-registry.js";
import type { Statements } from "./statements.js";

/** MLflow's model registry (ModelRegistryStore): reads, and the operations of workflows/model-registry.ts. */

export function getRegisteredModel(s: Statements, orgId: string, name: string): RegisteredModel | undefined {
  const row = s.get(`${REGISTERED_MODEL_SELECT} WHERE m.org_id = ? AND m.name = ?`).get(orgId, name) as RegisteredModelRow | undefined;
  return row && toRegisteredModel(row);
}

export function listRegisteredModels(s: Statements, orgId: string): RegisteredModel[] {
  return (s.get(`${REGISTERED_MODEL_SELECT} WHERE m.org_id = ? ORDER BY m.name`).all(orgId) as RegisteredModelRow[]).map(toRegisteredModel);
}

export function getModelVersion(s: Statements, orgId: string, name: string, version: number): ModelVersion | undefined {
  const row = s.get(`${MODEL_VERSION_SELECT} WHERE m.org_id = ? AND m.name = ? AND v.version = ?`).get(orgId, name, version) as
    | ModelVersionRow
    | undefined;
  return row && toModelVersion(row);
}

export function listModelVersions(s: Statements, orgId: string, name?: string): ModelVersion[] {
  const rows =
    name === undefined
      ? s.get(`${MODEL_VERSION_SELECT} WHERE m.org_id = ? ORDER BY v.model_id, v.version`).all(orgId)
      : s.get(`${MODEL_VERSION_SELECT} WHERE m.org_id = ? AND m.name = ? ORDER BY v.version`).all(orgId, name);
  return (rows as ModelVersionRow[]).map(toModelVersion);
}

/** The registry's operations in SQLite's SQL (the write transaction holds the whole database: "locked" reads need no more). */
export function sqliteRegistryOperations(s: Statements): ModelRegistryOperations {
  return {
    insertRegisteredModel: (orgId, model, now) =>
      (
        s
          .get(
            `INSERT INTO registered_models (org_id, name, description, tags, aliases, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          )
          .get(orgId, model.name, model.description, JSON.stringify(model.tags), JSON.stringify(model.aliases), now, now) as { id: number }
      ).id,
    getRegisteredModel: (orgId, name) => getRegisteredModel(s, orgId, name),
    getRegisteredModelById: (modelId) =>
      toRegisteredModel(s.get(`${REGISTERED_MODEL_SELECT} WHERE m.id = ?`).get(modelId) as RegisteredModelRow),
    takeModelVersionNumber: (orgId, name, now) => {
      const taken = s
        .get(
          `UPDATE registered_models SET last_version = last_version + 1, updated_at = ?
           WHERE org_id = ? AND name = ? RETURNING id, last_version`,
        )
        .get(now, orgId, name) as { id: number; last_version: number } | undefined;
      return taken && { modelId: taken.id, version: taken.last_version };
    },
    insertModelVersion: (modelId, version, input, now) => {
      s.get(
        `INSERT INTO model_versions (model_id, version, description, user_id, stage, source, storage_location, run_id, run_link,
                                     status, tags, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...modelVersionValues(modelId, version, input, now));
    },
    listVersionsOf: (modelId) =>
      (s.get(`${MODEL_VERSION_SELECT} WHERE v.model_id = ? ORDER BY v.version`).all(modelId) as ModelVersionRow[]).map(toModelVersion),
    getModelVersionOf: (modelId, version) => {
      const row = s.get(`${MODEL_VERSION_SELECT} WHERE v.model_id = ? AND v.version = ?`).get(modelId, version) as
        | ModelVersionRow
        | undefined;
      return row && toModelVersion(row);
    },
    writeRegisteredModel: (modelId, model, now) => {
      s.get("UPDATE registered_models SET name = ?, description = ?, tags = ?, aliases = ?, updated_at = ? WHERE id = ?").run(
        model.name,
        model.description,
        JSON.stringify(model.tags),
        JSON.stringify(model.aliases),
        now,
        modelId,
      );
    },
    writeModelVersion: (modelId, version, now) => {
      s.get("UPDATE model_versions SET description = ?, stage = ?, tags = ?, updated_at = ? WHERE model_id = ? AND version = ?").run(
        version.description,
        version.stage,
        JSON.stringify(version.tags),
        now,
        modelId,
        version.version,
      );
    },
    deleteModelVersion: (modelId, version) => {
      s.get("DELETE FROM model_versions WHERE model_id = ? AND version = ?").run(modelId, version);
    },
    deleteRegisteredModel: (modelId) => {
      s.get("DELETE FROM model_versions WHERE model_id = ?").run(modelId);
      s.get("DELETE FROM registered_models WHERE id = ?").run(modelId);
    },
  };
}
