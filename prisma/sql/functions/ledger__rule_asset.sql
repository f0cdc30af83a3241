-- p_has_asset: the line names an asset_code (a JSON null names one too, and never matches).
CREATE OR REPLACE FUNCTION ledger__rule_asset(p_has_asset boolean, p_line_asset text, p_account_asset text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_has_asset AND p_line_asset IS DISTINCT FROM p_account_asset THEN 'ASSET_MISMATCH' END
$$;
