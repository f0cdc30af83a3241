CREATE OR REPLACE FUNCTION ledger_void_pending(p_id text, p_key text, p_reason text) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  e journal_entries%ROWTYPE;
BEGIN
  SELECT * INTO e FROM journal_entries WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN PERFORM ledger__err('ENTRY_NOT_FOUND', 'entry ' || p_id || ' not found'); END IF;
  IF NOT e.two_phase THEN PERFORM ledger__err('NOT_PENDING', 'entry ' || p_id || ' is not a two-phase entry'); END IF;
  IF e.status = 'voided' THEN
    IF e.resolution_key = p_key THEN RETURN ledger_entry_json(p_id); END IF;
    PERFORM ledger__err('ALREADY_VOIDED', 'entry ' || p_id || ' is already voided');
  END IF;
  IF e.status = 'posted' THEN PERFORM ledger__err('ALREADY_POSTED', 'entry ' || p_id || ' is already posted'); END IF;
  PERFORM ledger__resolve(e, 'voided', p_key, coalesce(nullif(p_reason, ''), 'voided'));
  RETURN ledger_entry_json(p_id);
END $$;
