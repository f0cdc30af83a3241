CREATE OR REPLACE FUNCTION ledger_transaction_json(p_line ledger_lines, p_reference text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN ledger__txn_json(p_line, p_reference, (SELECT precision FROM assets WHERE code = p_line.asset_code));
END $$;
