-- A run's tags as jsonb for the tag filter, or NULL when its text is not valid jsonb: a tag with
-- U+0000 or an unpaired surrogate (JSON text `\u0000`, `\ud800`, which PostgreSQL's text keeps but
-- jsonb refuses) written before the edge refused such text. Such a row then matches no tag, where
-- a plain cast failed every tag-filtered list of its project. The run list calls it only for tags
-- that hold a `\u` escape, so the exception block (a subtransaction) is not paid per row.
CREATE FUNCTION stepwise_tags_jsonb(tags TEXT) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN tags::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END;
$$;
