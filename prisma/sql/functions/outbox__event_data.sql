-- The transfer batch's derived events carry references instead of their data ('from': 'line', a
-- customer line's transaction event; 'balance', an account's balance with the totals once the
-- transfer was applied; 'row', the outbox row's own data). The relay (domain/events/relay.ts) and
-- platform_events build the data when they read the row (outbox__derived). Events written with
-- their data (other writers, rows written before) are read as they are.
CREATE OR REPLACE FUNCTION outbox__event_data(p_event jsonb, p_row_data jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v jsonb;
BEGIN
  CASE p_event->>'from'
    WHEN 'line' THEN
      SELECT ledger__txn_json(l, e.reference, p.precision) INTO v
        FROM ledger_lines l JOIN journal_entries e ON e.id = l.entry_id JOIN assets p ON p.code = l.asset_code
       WHERE l.id = p_event->>'aggregate_id';
    WHEN 'balance' THEN
      SELECT ledger__balance_json(jsonb_populate_record(la, jsonb_build_object(
               'debits_posted', p_event->'dp', 'credits_posted', p_event->'cp',
               'debits_pending', p_event->'dpend', 'credits_pending', p_event->'cpend')), p.precision)
             || jsonb_build_object('entry_id', p_event->>'entry_id') INTO v
        FROM ledger_accounts la JOIN assets p ON p.code = la.asset_code
       WHERE la.id = p_event->>'ledger_account_id';
    WHEN 'row' THEN
      v := p_row_data;
    ELSE
      v := p_event->'data';
  END CASE;
  RETURN v;
END $$;
