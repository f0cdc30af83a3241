-- See overdraft_allowance: raised only by force, otherwise shrinks to the remaining deficit.
-- (plpgsql, not SQL: a SQL function that cannot be inlined is planned again on every call.)
CREATE OR REPLACE FUNCTION ledger__allowance(p_no_overdraft boolean, p_allowance numeric, p_deficit numeric, p_force boolean) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF NOT p_no_overdraft THEN RETURN 0; END IF;
  IF p_force AND p_deficit > p_allowance THEN RETURN p_deficit; END IF;
  RETURN LEAST(p_allowance, GREATEST(p_deficit, 0));
END $$;
