-- The message ledger__amount has always given with each refusal of ledger__rule_amount.
CREATE OR REPLACE FUNCTION ledger__amount_message(p_text text, p_precision integer, p_code text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_text IS NULL THEN 'amount is required'
    WHEN p_code = 'AMOUNT_PRECISION' THEN 'amount ' || p_text || ' has more than ' || p_precision || ' decimals'
    WHEN p_code = 'AMOUNT_NOT_POSITIVE' AND p_text LIKE '-%' THEN 'amount must be positive: ' || p_text
    WHEN p_code = 'AMOUNT_NOT_POSITIVE' THEN 'amount must be positive'
    WHEN p_text ~ '^[0-9]+(\.[0-9]+)?$' THEN 'amount too large'
    ELSE 'malformed amount: ' || left(p_text, 60)
  END
$$;
