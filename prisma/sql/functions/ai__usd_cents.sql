CREATE OR REPLACE FUNCTION ai__usd_cents(p_amount numeric, p_rate numeric) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT round(p_amount * p_rate * 100)::bigint $$;
