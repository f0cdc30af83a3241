-- The maximum-balance rule, given an account's totals once a posting is applied: a customer
-- account's inflows (posted and pending) less its posted outflows, on its normal side, above the
-- asset's maximum. Used by ledger__post and by transfers_create_immediate_batch_setwise.
CREATE OR REPLACE FUNCTION ledger__over_balance_limit(p_kind text, p_normal text, p_dp numeric, p_dpend numeric, p_cp numeric, p_cpend numeric, p_max numeric)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT p_kind = 'customer'
     AND CASE WHEN p_normal = 'credit' THEN p_cp + p_cpend - p_dp ELSE p_dp + p_dpend - p_cp END > p_max
$$;
