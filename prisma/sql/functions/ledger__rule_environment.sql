CREATE OR REPLACE FUNCTION ledger__rule_environment(p_entry_env text, p_account_env text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_account_env IS DISTINCT FROM p_entry_env THEN 'ENVIRONMENT_MISMATCH' END
$$;
