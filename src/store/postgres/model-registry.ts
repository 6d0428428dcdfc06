import {
  MODEL_VERSION_SELECT,
  type ModelVersionRow,
  REGISTERED_MODEL_SELECT,
  type RegisteredModelRow,
  toModelVersion,
  toRegisteredModel,
} from "../registry-rows.js";
import type { ModelVersion, RegisteredModel } from "../store.js";
import type { Async } from "../workflow.js";
import { type ModelRegistryOperations, modelVersionValues } from "../workflows/model-registry.js";
import { row, rows, run, type Sql } from "./db.js";

/** MLflow's model registry (ModelRegistryStore): reads, and the operations of workflows/model-registry.ts. */

/** With `lock` (the registry's workflows), the model's row is read FOR UPDATE. */
export async function getRegisteredModel(sql: Sql, orgId: string, name: string, lock = false): Promise<RegisteredModel | undefined> {
  const found = await row<RegisteredModelRow>(
    sql,
    `${REGISTERED_MODEL_SELECT} WHERE m.org_id = $1 AND m.name = $2${lock ? " FOR UPDATE" : ""}`,
    [orgId, name],
  );
  return found && toRegisteredModel(found);
}

export async function listRegisteredModels(sql: Sql, orgId: string): Promise<RegisteredModel[]> {
  return (await rows<RegisteredModelRow>(sql, `${REGISTERED_MODEL_SELECT} WHERE m.org_id = $1 ORDER BY m.name`, [orgId])).map(
    toRegisteredModel,
  );
}

export async function getModelVersion(sql: Sql, orgId: string, name: string, version: number): Promise<ModelVersion | undefined> {
  const found = await row<ModelVersionRow>(sql, `${MODEL_VERSION_SELECT} WHERE m.org_id = $1 AND m.name = $2 AND v.version = $3`, [
    orgId,
    name,
    version,
  ]);
  return found && toModelVersion(found);
}

export async function listModelVersions(sql: Sql, orgId: string, name?: string): Promise<ModelVersion[]> {
  const found =
    name === undefined
      ? await rows<ModelVersionRow>(sql, `${MODEL_VERSION_SELECT} WHERE m.org_id = $1 ORDER BY v.model_id, v.version`, [orgId])
      : await rows<ModelVersionRow>(sql, `${MODEL_VERSION_SELECT} WHERE m.org_id = $1 AND m.name = $2 ORDER BY v.version`, [orgId, name]);
  return found.map(toModelVersion);
}

/** The registry's operations in PostgreSQL's SQL, inside the workflow's transaction. */
export function postgresRegistryOperations(sql: Sql): Async<ModelRegistryOperations> {
  return {
    insertRegisteredModel: async (orgId, model, now) =>
      (await row<{ id: number }>(
        sql,
        `INSERT INTO registered_models (org_id, name, description, tags, aliases, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [orgId, model.name, model.description, JSON.stringify(model.tags), JSON.stringify(model.aliases), now, now],
      ))!.id,
    getRegisteredModel: (orgId, name, lock) => getRegisteredModel(sql, orgId, name, lock),
    getRegisteredModelById: async (modelId) =>
      toRegisteredModel((await row<RegisteredModelRow>(sql, `${REGISTERED_MODEL_SELECT} WHERE m.id = $1`, [modelId]))!),
    takeModelVersionNumber: async (orgId, name, now) => {
      const taken = await row<{ id: number; last_version: number }>(
        sql,
        `UPDATE registered_models SET last_version = last_version + 1, updated_at = $1
         WHERE org_id = $2 AND name = $3 RETURNING id, last_version`,
        [now, orgId, name],
      );
      return taken && { modelId: taken.id, version: taken.last_version };
    },
    insertModelVersion: async (modelId, version, input, now) => {
      await run(
        sql,
        `INSERT INTO model_versions (model_id, version, description, user_id, stage, source, storage_location, run_id, run_link,
                                     status, tags, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
        modelVersionValues(modelId, version, input, now),
      );
    },
    listVersionsOf: async (modelId) =>
      (await rows<ModelVersionRow>(sql, `${MODEL_VERSION_SELECT} WHERE v.model_id = $1 ORDER BY v.version`, [modelId])).map(toModelVersion),
    getModelVersionOf: async (modelId, version) => {
      const found = await row<ModelVersionRow>(sql, `${MODEL_VERSION_SELECT} WHERE v.model_id = $1 AND v.version = $2`, [modelId, version]);
      return found && toModelVersion(found);
    },
    writeRegisteredModel: async (modelId, model, now) => {
      await run(sql, "UPDATE registered_models SET name = $1, description = $2, tags = $3, aliases = $4, updated_at = $5 WHERE id = $6", [
        model.name,
        model.description,
        JSON.stringify(model.tags),
        JSON.stringify(model.aliases),
        now,
        modelId,
      ]);
    },
    writeModelVersion: async (modelId, version, now) => {
      await run(
        sql,
        "UPDATE model_versions SET description = $1, stage = $2, tags = $3, updated_at = $4 WHERE model_id = $5 AND version = $6",
        [version.description, version.stage, JSON.stringify(version.tags), now, modelId, version.version],
      );
    },
    deleteModelVersion: async (modelId, version) => {
      await run(sql, "DELETE FROM model_versions WHERE model_id = $1 AND version = $2", [modelId, version]);
    },
    deleteRegisteredModel: async (modelId) => {
      await run(sql, "DELETE FROM model_versions WHERE model_id = $1", [modelId]);
      await run(sql, "DELETE FROM registered_models WHERE id = $1", [modelId]);
    },
  };
}
