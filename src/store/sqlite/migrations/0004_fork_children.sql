-- Run pages list the forks of a run (its children); find them without scanning the organization's runs.
CREATE INDEX runs_forked_from ON runs(forked_from_run_id) WHERE forked_from_run_id IS NOT NULL;
