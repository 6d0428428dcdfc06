import type { ModelVersion, RegisteredModel } from "./store.js";

/** Row → record mappings of the model registry's tables (migration 0015), shared by both backends. */

export const REGISTERED_MODEL_SELECT =
  "SELECT m.id, m.name, m.description, m.tags, m.aliases, m.last_version, m.created_at, m.updated_at FROM registered_models m";

export interface RegisteredModelRow {
  id: number;
  name: string;
  description: string;
  tags: string;
  aliases: string;
  last_version: number;
  created_at: number;
  updated_at: number;
}

export function toRegisteredModel(row: RegisteredModelRow): RegisteredModel {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    tags: JSON.parse(row.tags) as [string, string][],
    aliases: JSON.parse(row.aliases) as [string, number][],
    lastVersion: Number(row.last_version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export const MODEL_VERSION_SELECT = `SELECT v.model_id, m.name AS model_name, v.version, v.description, v.user_id, v.stage, v.source,
  v.storage_location, v.run_id, v.run_link, v.status, v.status_message, v.tags, v.created_at, v.updated_at
  FROM model_versions v JOIN registered_models m ON m.id = v.model_id`;

export interface ModelVersionRow {
  model_id: number;
  model_name: string;
  version: number;
  description: string;
  user_id: string;
  stage: string;
  source: string;
  storage_location: string;
  run_id: string;
  run_link: string;
  status: string;
  status_message: string;
  tags: string;
  created_at: number;
  updated_at: number;
}

export function toModelVersion(row: ModelVersionRow): ModelVersion {
  return {
    modelId: Number(row.model_id),
    modelName: row.model_name,
    version: Number(row.version),
    description: row.description,
    userId: row.user_id,
    stage: row.stage,
    source: row.source,
    storageLocation: row.storage_location,
    runId: row.run_id,
    runLink: row.run_link,
    status: row.status,
    statusMessage: row.status_message,
    tags: JSON.parse(row.tags) as [string, string][],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
