-- ledger__amount as in 20261121010000_ledger, deciding with ledger__rule_amount (same codes, same
-- messages). Other ledger functions still parse amounts through it.
CREATE OR REPLACE FUNCTION ledger__amount(p_text text, p_precision integer) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_code text := ledger__rule_amount(p_text, p_precision);
BEGIN
  IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, ledger__amount_message(p_text, p_precision, v_code)); END IF;
  RETURN p_text::numeric;
END $$;
