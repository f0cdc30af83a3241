-- JSON shapes with the precision passed in, so a posting that already knows it does not look the
-- asset up once per line and account. The one-argument versions keep their signatures.
CREATE OR REPLACE FUNCTION ledger__txn_json(p_line ledger_lines, p_reference text, p_prec integer) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN jsonb_build_object(
    'id', p_line.id, 'account_id', p_line.account_id, 'ledger_account_id', p_line.ledger_account_id,
    'entry_id', p_line.entry_id, 'type', p_line.txn_type,
    'amount', round(p_line.amount, p_prec)::text, 'asset_code', p_line.asset_code,
    'status', ledger__txn_status(p_line.status), 'reference', p_reference,
    'created_at', p_line.created_at, 'completed_at', p_line.completed_at,
    'balance_after', round(p_line.balance_after, p_prec)::text);
END $$;
