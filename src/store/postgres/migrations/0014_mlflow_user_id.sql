-- The `user_id` MLflow's client creates a run with, a field of the run. As the SQLite store's
-- migration 0014; a run whose tags are not valid jsonb (stepwise_tags_jsonb, 0012) keeps ''.
ALTER TABLE runs ADD COLUMN mlflow_user_id TEXT NOT NULL DEFAULT '';
UPDATE runs SET mlflow_user_id = tag.value ->> 1
FROM (
  SELECT r.id, t.value
  FROM runs r, jsonb_array_elements(stepwise_tags_jsonb(r.mlflow_tags)) AS t(value)
  WHERE r.mlflow_tags LIKE '%mlflow.user%'
) AS tag
WHERE runs.id = tag.id AND tag.value ->> 0 = 'mlflow.user' AND jsonb_typeof(tag.value -> 1) = 'string';
