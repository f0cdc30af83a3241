-- Maximum balance, given the account's totals once the posting is applied (the formula is
-- ledger__over_balance_limit).
CREATE OR REPLACE FUNCTION ledger__rule_balance_limit(p_kind text, p_normal text, p_dp numeric, p_dpend numeric, p_cp numeric, p_cpend numeric, p_max numeric)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN ledger__over_balance_limit(p_kind, p_normal, p_dp, p_dpend, p_cp, p_cpend, p_max) THEN 'BALANCE_LIMIT_EXCEEDED' END
$$;
