CREATE OR REPLACE FUNCTION ledger__rule_direction(p_direction text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_direction IS NULL OR p_direction NOT IN ('debit', 'credit') THEN 'INVALID_ENTRY' END
$$;
