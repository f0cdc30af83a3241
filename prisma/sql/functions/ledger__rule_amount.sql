-- Amount syntax, in ledger__amount's order: missing, negative, not a plain decimal, more than 20
-- integer digits, more decimals than the asset's precision, zero. The syntax is the one regex of
-- domain/money/amount.ts (AMOUNT_PATTERN); tests/ledger/rules.test.ts checks that both agree on a
-- table of spellings. The cast runs only once the text is a plain decimal of at most 20 digits.
CREATE OR REPLACE FUNCTION ledger__rule_amount(p_text text, p_precision integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_text IS NULL THEN 'INVALID_AMOUNT'
    WHEN p_text ~ '^-[0-9]+(\.[0-9]+)?$' THEN 'AMOUNT_NOT_POSITIVE'
    WHEN p_text !~ '^[0-9]+(\.[0-9]+)?$' THEN 'INVALID_AMOUNT'
    WHEN length(ltrim(split_part(p_text, '.', 1), '0')) > 20 THEN 'INVALID_AMOUNT'
    WHEN length(split_part(p_text, '.', 2)) > p_precision THEN 'AMOUNT_PRECISION'
    WHEN p_text::numeric = 0 THEN 'AMOUNT_NOT_POSITIVE'
  END
$$;
