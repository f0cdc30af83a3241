-- An outbox row's derived events as references (outbox__event_data builds their data), in order:
-- the stored array, or the references of the compact transfer form.
CREATE OR REPLACE FUNCTION outbox__derived_refs(p_row_id text, p_user_id text, p_aggregate_id text, p_derived jsonb)
RETURNS TABLE (e jsonb, k bigint) LANGUAGE sql STABLE AS $$
  SELECT d.e, d.k
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p_derived) = 'array' THEN p_derived END) WITH ORDINALITY d(e, k)
  UNION ALL
  SELECT CASE WHEN r.e ? 'id' THEN r.e ELSE r.e || jsonb_build_object('id', outbox__derived_id(p_row_id, r.k)) END, r.k
    FROM (SELECT x.e, row_number() OVER (ORDER BY x.ord) AS k
            FROM (SELECT l.line_no * 2 + v.o AS ord,
                         jsonb_build_object('type', v.type, 'user_id', l.user_id, 'aggregate_type', 'transaction',
                                            'aggregate_id', l.id, 'from', 'line') AS e
                    FROM ledger_lines l CROSS JOIN (VALUES (0, 'transaction.created'), (1, 'transaction.completed')) v(o, type)
                   WHERE l.entry_id = p_derived->>'entry_id' AND l.account_id IS NOT NULL
                  UNION ALL
                  SELECT 1000000 + b.n,
                         jsonb_build_object('type', 'account.balance_updated', 'user_id', la.user_id, 'aggregate_type', 'account',
                                            'aggregate_id', la.account_id, 'from', 'balance', 'ledger_account_id', la.id,
                                            'dp', b.v->1, 'cp', b.v->2, 'dpend', b.v->3, 'cpend', b.v->4, 'entry_id', p_derived->>'entry_id')
                    FROM jsonb_array_elements(p_derived->'balances') WITH ORDINALITY b(v, n)
                         -- LIMIT keeps this a lookup by primary key per balance (two): as a join, the
                         -- planner guesses a hundred elements and scans every ledger account.
                         CROSS JOIN LATERAL (SELECT la.id, la.user_id, la.account_id FROM ledger_accounts la
                                              WHERE la.id = b.v->>0 LIMIT 1) la
                  UNION ALL
                  SELECT 2000000,
                         jsonb_build_object('id', p_derived->>'completed', 'type', 'transfer.completed', 'user_id', p_user_id,
                                            'aggregate_type', 'transfer', 'aggregate_id', p_aggregate_id, 'from', 'row')) x
           WHERE jsonb_typeof(p_derived) = 'object') r
$$;
