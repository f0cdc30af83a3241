-- Outbox events of a post or void of a pending entry (ledger__post writes its own inline).
CREATE OR REPLACE FUNCTION ledger__emit(p_entry_id text, p_accounts text[], p_now timestamptz, p_created boolean, p_completed boolean) RETURNS void
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_env text;
  v_ref text;
BEGIN
  SELECT environment, reference INTO v_env, v_ref FROM journal_entries WHERE id = p_entry_id;
  INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
  SELECT ledger__new_id('evt'), ev.type, v_env, l.user_id, 'transaction', l.id, ledger__txn_json(l, v_ref, a.precision), p_now
  FROM ledger_lines l
  JOIN assets a ON a.code = l.asset_code
  CROSS JOIN (VALUES (1, 'transaction.created'), (2, 'transaction.completed')) ev(ord, type)
  WHERE l.entry_id = p_entry_id AND l.account_id IS NOT NULL
    AND ((ev.ord = 1 AND p_created) OR (ev.ord = 2 AND p_completed))
  ORDER BY l.line_no, ev.ord;

  INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
  SELECT ledger__new_id('evt'), 'account.balance_updated', v_env, la.user_id, 'account', la.account_id,
         ledger__balance_json(la, a.precision) || jsonb_build_object('entry_id', p_entry_id), p_now
  FROM ledger_accounts la
  JOIN assets a ON a.code = la.asset_code
  -- kind || '' keeps the planner on the primary key (the kind index would visit every customer).
  WHERE la.id = ANY (p_accounts) AND la.kind || '' = 'customer'
  ORDER BY la.id;
END $$;
