-- Reverses a posted entry with a new entry of swapped directions linked to it. At most once (the
-- unique index on reverses_entry_id). With p_force, no-overdraft accounts may go negative: the
-- shortfall is granted as overdraft_allowance and recorded in the entry's forced_overdraft.
CREATE OR REPLACE FUNCTION ledger_reverse_entry(p_id text, p_key text, p_reason text, p_force boolean, p_user_id text) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  o journal_entries%ROWTYPE;
  v_lines jsonb;
  p jsonb;
BEGIN
  SELECT * INTO o FROM journal_entries WHERE id = p_id;
  IF NOT FOUND THEN PERFORM ledger__err('ENTRY_NOT_FOUND', 'entry ' || p_id || ' not found'); END IF;

  SELECT jsonb_agg(jsonb_build_object(
           'account_id', l.ledger_account_id,
           'direction', CASE WHEN l.direction = 'debit' THEN 'credit' ELSE 'debit' END,
           'amount', round(l.amount, a.precision)::text) ORDER BY l.line_no)
    INTO v_lines
  FROM ledger_lines l JOIN assets a ON a.code = l.asset_code WHERE l.entry_id = p_id;

  p := jsonb_build_object(
    'environment', o.environment, 'idempotency_key', p_key, 'type', 'reversal',
    'description', 'Reversal of ' || o.id || coalesce(': ' || nullif(p_reason, ''), ''),
    'reference', o.reference,
    'metadata', jsonb_build_object('reason', p_reason, 'reversed_entry_type', o.type, 'forced', coalesce(p_force, false)),
    'user_id', coalesce(p_user_id, o.user_id), 'lines', v_lines);

  -- A replayed key answers as the first call did, whatever happened since.
  IF NOT EXISTS (SELECT 1 FROM journal_entries WHERE environment = o.environment AND idempotency_key = p_key) THEN
    IF o.status = 'pending' THEN PERFORM ledger__err('NOT_POSTED', 'entry ' || p_id || ' is pending; void it instead'); END IF;
    IF o.status = 'voided' THEN PERFORM ledger__err('ALREADY_VOIDED', 'entry ' || p_id || ' is voided'); END IF;
    IF EXISTS (SELECT 1 FROM journal_entries WHERE reverses_entry_id = p_id) THEN
      PERFORM ledger__err('ALREADY_REVERSED', 'entry ' || p_id || ' is already reversed');
    END IF;
  END IF;
  RETURN ledger__post(p, p_id, coalesce(p_force, false));
END $$;
