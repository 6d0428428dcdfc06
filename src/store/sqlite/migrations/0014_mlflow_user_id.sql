-- The `user_id` MLflow's client creates a run with, kept as MLflow's server keeps it: a field of the
-- run, not a tag. Until now it was written as an `mlflow.user` tag the client had not sent; runs
-- made before this migration take their user from that tag ('' when none). The tag stays: it can
-- no longer be told from one the client sent.
ALTER TABLE runs ADD COLUMN mlflow_user_id TEXT NOT NULL DEFAULT '';
UPDATE runs SET mlflow_user_id = coalesce(
  (SELECT json_extract(tag.value, '$[1]') FROM json_each(runs.mlflow_tags) AS tag
   WHERE json_extract(tag.value, '$[0]') = 'mlflow.user' AND json_type(tag.value, '$[1]') = 'text'),
  '')
WHERE mlflow_tags LIKE '%mlflow.user%';
