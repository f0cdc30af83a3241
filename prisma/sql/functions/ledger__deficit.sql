-- Outflows beyond inflows of an account, on its own side of the ledger.
CREATE OR REPLACE FUNCTION ledger__deficit(p_normal text, p_dp numeric, p_dpend numeric, p_cp numeric, p_cpend numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_normal = 'credit' THEN p_dp + p_dpend - p_cp ELSE p_cp + p_cpend - p_dp END
$$;
