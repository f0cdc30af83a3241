-- p_json_type: jsonb_typeof of the line's amount.
CREATE OR REPLACE FUNCTION ledger__rule_amount_type(p_json_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_json_type IS DISTINCT FROM 'string' THEN 'INVALID_AMOUNT' END
$$;
