CREATE OR REPLACE FUNCTION ledger__balance_json(p_la ledger_accounts, p_prec integer) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_credit boolean := p_la.normal_balance = 'credit';
BEGIN
  RETURN jsonb_build_object(
    'account_id', p_la.account_id, 'ledger_account_id', p_la.id, 'asset_code', p_la.asset_code, 'chain', p_la.chain,
    'available_balance', round(CASE WHEN v_credit THEN p_la.credits_posted - p_la.debits_posted - p_la.debits_pending
                                    ELSE p_la.debits_posted - p_la.credits_posted - p_la.credits_pending END, p_prec)::text,
    'reserved_balance', round(CASE WHEN v_credit THEN p_la.debits_pending ELSE p_la.credits_pending END, p_prec)::text,
    'total_balance', round(CASE WHEN v_credit THEN p_la.credits_posted - p_la.debits_posted
                                ELSE p_la.debits_posted - p_la.credits_posted END, p_prec)::text);
END $$;
