-- Posts a pending entry. Replaying the same key returns the entry; a different key on a posted
-- entry is ALREADY_POSTED. A pending entry past its timeout is voided (that commits) and the
-- result carries error PENDING_EXPIRED instead of raising, so the void is not rolled back.
CREATE OR REPLACE FUNCTION ledger_post_pending(p_id text, p_key text) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  e journal_entries%ROWTYPE;
BEGIN
  SELECT * INTO e FROM journal_entries WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN PERFORM ledger__err('ENTRY_NOT_FOUND', 'entry ' || p_id || ' not found'); END IF;
  IF NOT e.two_phase THEN PERFORM ledger__err('NOT_PENDING', 'entry ' || p_id || ' is not a two-phase entry'); END IF;
  IF e.status = 'posted' THEN
    IF e.resolution_key = p_key THEN RETURN ledger_entry_json(p_id); END IF;
    PERFORM ledger__err('ALREADY_POSTED', 'entry ' || p_id || ' is already posted');
  END IF;
  IF e.status = 'voided' THEN
    IF e.resolution_key IS NULL AND e.void_reason = 'expired' THEN
      PERFORM ledger__err('PENDING_EXPIRED', 'entry ' || p_id || ' expired and was voided');
    END IF;
    PERFORM ledger__err('ALREADY_VOIDED', 'entry ' || p_id || ' is voided');
  END IF;
  IF e.pending_expires_at IS NOT NULL AND e.pending_expires_at <= clock_timestamp() THEN
    PERFORM ledger__resolve(e, 'voided', NULL, 'expired');
    RETURN jsonb_build_object('error', 'PENDING_EXPIRED', 'entry', ledger_entry_json(p_id));
  END IF;
  PERFORM ledger__resolve(e, 'posted', p_key, NULL);
  RETURN ledger_entry_json(p_id);
END $$;
