-- The id of an outbox row's k-th derived event when the row does not store it.
CREATE OR REPLACE FUNCTION outbox__derived_id(p_row_id text, p_k bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT 'evt_' || substr(p_row_id, 5, 13) || substr(md5(p_row_id || '/' || p_k), 1, 19)
$$;
