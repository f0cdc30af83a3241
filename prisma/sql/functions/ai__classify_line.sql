-- A customer line's facts, from its entry, its ledger account and (for a bridge) the bridge: the same
-- projection as before, for one line. The entry is written before its lines (ledger__post).
CREATE OR REPLACE FUNCTION ai__classify_line() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_type     text;
  v_metadata jsonb;
  v_ref      text;
  v_desc     text;
  v_chain    text;
  v_bridge   bridge_transfers%ROWTYPE;
BEGIN
  SELECT e.type, e.metadata, e.reference, e.description INTO v_type, v_metadata, v_ref, v_desc FROM journal_entries e WHERE e.id = NEW.entry_id;
  SELECT la.chain INTO v_chain FROM ledger_accounts la WHERE la.id = NEW.ledger_account_id;
  IF v_type = 'bridge' THEN
    SELECT * INTO v_bridge FROM bridge_transfers b WHERE b.id = v_ref;
  END IF;
  NEW.fact_type := ai__fact_type(v_type, v_metadata, NEW.txn_type);
  NEW.usd_cents := ai__usd_cents(NEW.amount, ai__usd_rate(NEW.asset_code));
  NEW.fact_chain := coalesce(v_bridge.source_chain, nullif(v_chain, ''));
  NEW.destination_chain := v_bridge.destination_chain;
  NEW.bridge_protocol := v_bridge.protocol;
  NEW.subject_id := coalesce(v_metadata->>'transfer_id', v_bridge.id, v_metadata->>'rail_payment_id', v_metadata->>'ilp_payment_id');
  NEW.description := v_desc;
  RETURN NEW;
END $$;
