-- p_sum: debits minus credits of one asset in one entry.
CREATE OR REPLACE FUNCTION ledger__rule_balanced(p_sum numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_sum <> 0 THEN 'UNBALANCED' END
$$;
