CREATE OR REPLACE FUNCTION ledger_balance_json(p_la ledger_accounts) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN ledger__balance_json(p_la, (SELECT precision FROM assets WHERE code = p_la.asset_code));
END $$;
