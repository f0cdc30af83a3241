-- Funds, given the account's deficit (ledger__deficit) once the posting is applied.
CREATE OR REPLACE FUNCTION ledger__rule_funds(p_no_overdraft boolean, p_allowance numeric, p_deficit numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_no_overdraft AND p_deficit > p_allowance THEN 'INSUFFICIENT_FUNDS' END
$$;
