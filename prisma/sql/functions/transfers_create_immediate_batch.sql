-- Group commit for immediate transfers: one statement and one commit for up to a few dozen of them.
-- Each transfer still succeeds or fails on its own: it runs in its own subtransaction, and a
-- ledger refusal (insufficient funds, frozen, ...) rolls back only that transfer's rows and is
-- returned in its slot; so is a transfer whose request key another transfer holds (unique_violation
-- on transfers_request_key_key). Any other error fails the whole statement; the caller then posts
-- the batch's transfers one by one, so the error reaches only the request that caused it.
-- Deadlocks: every ledger account of every transfer in the batch is locked first, in id order, in
-- one statement, like any single posting does; the postings inside then hold all their locks.
CREATE OR REPLACE FUNCTION transfers_create_immediate_batch(p_items jsonb) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  it       jsonb;
  v_now    timestamptz := now()::timestamptz(3);
  v_out    jsonb := '[]';
  v_state  text;
  v_msg    text;
  v_detail text;
  v_constr text;
BEGIN
  PERFORM 1 FROM ledger_accounts
   WHERE id = ANY (ARRAY(SELECT DISTINCT l->>'account_id'
                         FROM jsonb_array_elements(p_items) i, jsonb_array_elements(i->'entry'->'lines') l))
   ORDER BY id FOR UPDATE;

  FOR it IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    BEGIN
      INSERT INTO transfers (id, environment, user_id, from_account_id, to_account_id, asset_code, amount, fee_amount, status,
                             reference, description, metadata, entry_id, estimated_completion, created_at, updated_at, completed_at,
                             request_key)
      VALUES (it->>'id', it->>'environment', it->>'user_id', it->>'from_account_id', it->>'to_account_id', it->>'asset_code',
              (it->>'amount')::numeric, (it->>'fee_amount')::numeric, 'completed', it->>'reference', it->>'description',
              coalesce(it->'metadata', '{}'), it->>'entry_id', v_now, v_now, v_now, v_now, it->>'request_key');
      INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
      SELECT e->>'id', e->>'type', it->>'environment', it->>'user_id', 'transfer', it->>'id', it->'event_data',
             clock_timestamp() + make_interval(secs => (n - 1) * 0.001)
      FROM jsonb_array_elements(it->'events') WITH ORDINALITY x(e, n);
      PERFORM ledger__post(it->'entry', NULL, false);
      v_out := v_out || jsonb_build_array(jsonb_build_object('ok', true));
    EXCEPTION WHEN SQLSTATE 'LGR01' OR check_violation THEN
      GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_constr = CONSTRAINT_NAME;
      v_out := v_out || jsonb_build_array(jsonb_build_object('ok', false, 'code', v_state, 'message', v_msg,
                                                              'detail', nullif(v_detail, ''), 'constraint', nullif(v_constr, '')));
    WHEN unique_violation THEN
      -- The request key is another transfer's (a retried request): nothing of this one was written;
      -- the caller answers with that transfer. Any other unique violation is an error.
      GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT, v_detail = PG_EXCEPTION_DETAIL, v_constr = CONSTRAINT_NAME;
      IF v_constr IS DISTINCT FROM 'transfers_request_key_key' THEN RAISE; END IF;
      v_out := v_out || jsonb_build_array(jsonb_build_object('ok', false, 'code', v_state, 'message', v_msg,
                                                              'detail', nullif(v_detail, ''), 'constraint', v_constr));
    END;
  END LOOP;
  RETURN jsonb_build_object('now', v_now, 'results', v_out);
END $$;
