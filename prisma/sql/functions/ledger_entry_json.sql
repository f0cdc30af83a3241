CREATE OR REPLACE FUNCTION ledger_entry_json(p_id text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT jsonb_build_object(
    'id', e.id, 'environment', e.environment, 'idempotency_key', e.idempotency_key, 'type', e.type,
    'status', e.status, 'two_phase', e.two_phase, 'description', e.description, 'reference', e.reference,
    'metadata', e.metadata, 'user_id', e.user_id, 'reverses_entry_id', e.reverses_entry_id,
    'reversed_by_entry_id', (SELECT r.id FROM journal_entries r WHERE r.reverses_entry_id = e.id),
    'forced_overdraft', e.forced_overdraft, 'pending_expires_at', e.pending_expires_at,
    'void_reason', e.void_reason, 'created_at', e.created_at, 'posted_at', e.posted_at, 'voided_at', e.voided_at,
    'lines', (SELECT jsonb_agg(jsonb_build_object(
        'id', l.id, 'account_id', l.ledger_account_id, 'asset_code', l.asset_code, 'direction', l.direction,
        'amount', round(l.amount, a.precision)::text, 'balance_after', round(l.balance_after, a.precision)::text,
        'status', l.status, 'customer_account_id', l.account_id, 'transaction_type', l.txn_type) ORDER BY l.line_no)
      FROM ledger_lines l JOIN assets a ON a.code = l.asset_code WHERE l.entry_id = e.id))
  FROM journal_entries e WHERE e.id = p_id);
END $$;
