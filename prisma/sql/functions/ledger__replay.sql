CREATE OR REPLACE FUNCTION ledger__replay(p_found journal_entries, p_hash text) RETURNS jsonb
LANGUAGE plpgsql AS $$
BEGIN
  IF p_found.request_hash <> p_hash THEN
    PERFORM ledger__err('IDEMPOTENCY_CONFLICT', 'idempotency key ' || p_found.idempotency_key || ' was used for different content',
      jsonb_build_object('entry_id', p_found.id));
  END IF;
  RETURN ledger_entry_json(p_found.id);
END $$;
