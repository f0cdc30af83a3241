-- An amount's text as numeric, or LGR01 with the code of ledger__rule_amount (the rules of
-- parseAmount in domain/money/amount.ts) and the message of ledger__amount_message.
CREATE OR REPLACE FUNCTION ledger__amount(p_text text, p_precision integer) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_code text := ledger__rule_amount(p_text, p_precision);
BEGIN
  IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, ledger__amount_message(p_text, p_precision, v_code)); END IF;
  RETURN p_text::numeric;
END $$;
