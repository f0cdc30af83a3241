-- Errors are SQLSTATE LGR01 with a message "CODE: text" that domain/ledger maps to LedgerError;
-- DETAIL carries JSON.
CREATE OR REPLACE FUNCTION ledger__err(p_code text, p_message text, p_detail jsonb DEFAULT '{}') RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'LGR01', MESSAGE = p_code || ': ' || p_message, DETAIL = p_detail::text;
END $$;
