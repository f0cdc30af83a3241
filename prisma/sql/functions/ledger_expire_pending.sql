-- Voids one pending entry if it is past its timeout; false when there was nothing to do.
CREATE OR REPLACE FUNCTION ledger_expire_pending(p_id text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  e journal_entries%ROWTYPE;
BEGIN
  SELECT * INTO e FROM journal_entries WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR e.status <> 'pending' OR e.pending_expires_at IS NULL OR e.pending_expires_at > clock_timestamp() THEN
    RETURN false;
  END IF;
  PERFORM ledger__resolve(e, 'voided', NULL, 'expired');
  RETURN true;
END $$;
