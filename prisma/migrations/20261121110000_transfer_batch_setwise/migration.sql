-- Immediate transfers posted set-wise. A batch of immediate transfers used to call ledger__post
-- once per transfer; profiling showed that per-call work (about twenty statements' start-up, the
-- CHECK expressions rebuilt per statement, one new row version per hot account per transfer)
-- was most of PostgreSQL's time. Now, when every transfer of the batch is certain to succeed, the
-- batch is written with one statement per table: every transfer row, entry, line, outbox event
-- and account total at once, each account updated once.
--
-- "Certain to succeed" is decided under the batch's row locks, by the same rules ledger__post
-- applies, with each transfer seeing the totals left by the transfers before it (per account, in
-- batch order). If any transfer might fail, or has anything the set-wise path does not handle
-- (pending, an overdraft allowance, an amount in an unusual spelling), nothing has been written
-- yet and the batch takes the old path, transfers_create_immediate_batch: each transfer in its
-- own subtransaction through ledger__post, which gives every refusal its exact error. The results, rows, balances, events
-- and the entry's idempotency hash are the same either way (tests/transfers/group-commit.test.ts).
CREATE FUNCTION transfers_create_immediate_batch_setwise(p_items jsonb) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_n      integer := jsonb_array_length(p_items);
  v_now    timestamptz;
  v_ok     boolean;
  -- The batch's ledger accounts as locked, in id order.
  a        ledger_accounts[];
  -- Every line of every transfer, in batch then line order, as it will be written.
  l_item   integer[];
  l_no     integer[];
  l_id     text[];
  l_entry  text[];
  l_env    text[];
  l_ref    text[];
  l_acc    text[];
  l_dir    text[];
  l_amt    numeric[];
  l_tt     text[];
  l_bal    numeric[];
  -- The line's account's posted totals once its transfer is applied (for balance events).
  l_dp     numeric[];
  l_cp     numeric[];
BEGIN
  IF v_n = 0 THEN RETURN jsonb_build_object('now', now()::timestamptz(3), 'results', '[]'::jsonb); END IF;

  -- Every ledger account of the batch, locked in id order (so batches and single postings cannot
  -- deadlock) and read in the same statement.
  SELECT array_agg(s.la ORDER BY (s.la).id) INTO a
  FROM (SELECT la FROM ledger_accounts la
         WHERE la.id = ANY (ARRAY(SELECT DISTINCT l->>'account_id'
                                  FROM jsonb_array_elements(p_items) i, jsonb_array_elements(i->'entry'->'lines') l))
         ORDER BY la.id FOR UPDATE) s;
  -- Under the locks: lines of one account get times in the order they were applied.
  v_now := clock_timestamp()::timestamptz(3);

  -- The lines with everything the checks and the writes need; v_ok says whether every transfer
  -- passes ledger__post's rules in batch order.
  WITH acc AS (
    SELECT la.id, la.environment AS env, la.asset_code AS asset, la.kind, p.precision AS prec, la.status,
           la.normal_balance AS normal, la.no_overdraft AS nood, la.overdraft_allowance AS allow,
           la.debits_posted AS dp, la.debits_pending AS dpend, la.credits_posted AS cp, la.credits_pending AS cpend
    FROM unnest(a) la JOIN assets p ON p.code = la.asset_code
  ), ln AS (
    SELECT i.n AS item, l.n AS line_no, i.v->'entry' AS e, l.v AS l, l.v->>'direction' AS dir, l.v->>'amount' AS amt_txt
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(v, n),
         jsonb_array_elements(CASE WHEN jsonb_typeof(i.v->'entry'->'lines') = 'array' THEN i.v->'entry'->'lines' ELSE '[]' END)
           WITH ORDINALITY l(v, n)
  ), x AS (
    SELECT ln.*, acc.id AS acc_id, acc.env AS acc_env, acc.asset, acc.kind, acc.status, acc.normal, acc.nood, acc.allow,
           acc.dp, acc.dpend, acc.cp, acc.cpend,
           -- ledger__amount's rules, as a value (null: not certain, let ledger__post judge it).
           CASE WHEN jsonb_typeof(ln.l->'amount') = 'string' AND ln.amt_txt ~ '^[0-9]{1,20}(\.[0-9]+)?$'
                     AND length(split_part(ln.amt_txt, '.', 2)) <= acc.prec AND ln.amt_txt::numeric > 0
                THEN ln.amt_txt::numeric END AS amt
    FROM ln LEFT JOIN acc ON acc.id = ln.l->>'account_id'
  ), y AS (
    SELECT x.*,
           -- The transfer's own rules.
           x.e->>'environment' IN ('sandbox', 'production') AND coalesce(x.e->>'idempotency_key', '') <> ''
           AND coalesce(x.e->>'type', '') <> '' AND coalesce(x.e->>'entry_id', '') <> ''
           AND coalesce(x.e->>'pending', 'false') = 'false'
           AND count(*) OVER (PARTITION BY x.item) >= 2
           -- The line's.
           AND jsonb_typeof(x.l) = 'object' AND x.acc_id IS NOT NULL AND x.acc_env = x.e->>'environment'
           AND x.dir IN ('debit', 'credit') AND (NOT x.l ? 'asset_code' OR x.l->>'asset_code' = x.asset)
           AND x.amt IS NOT NULL
           AND (x.l->>'transaction_type' IS NULL
                OR x.l->>'transaction_type' IN ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal'))
           AND (x.status = 'active' OR (x.status = 'frozen' AND x.dir = 'credit'))
           AND x.allow = 0
           -- Balanced per asset within the transfer.
           AND sum(CASE WHEN x.dir = 'debit' THEN x.amt ELSE -x.amt END) OVER (PARTITION BY x.item, x.asset) = 0 AS ok,
           -- Posted totals once this line's transfer is applied (RANGE: all lines of the transfer).
           x.dp + coalesce(sum(CASE WHEN x.dir = 'debit' THEN x.amt END) OVER (PARTITION BY x.acc_id ORDER BY x.item), 0) AS dp_after,
           x.cp + coalesce(sum(CASE WHEN x.dir = 'credit' THEN x.amt END) OVER (PARTITION BY x.acc_id ORDER BY x.item), 0) AS cp_after,
           CASE WHEN x.normal = 'credit' THEN x.cp - x.dp ELSE x.dp - x.cp END
             + sum(CASE WHEN x.dir = x.normal THEN x.amt ELSE -x.amt END)
                 OVER (PARTITION BY x.acc_id ORDER BY x.item, x.line_no ROWS UNBOUNDED PRECEDING) AS bal
    FROM x
  )
  -- coalesce: a null (an unknown account, say) is a no, not a row bool_and skips.
  SELECT bool_and(coalesce(ok AND (NOT nood OR ledger__deficit(normal, dp_after, dpend, cp_after, cpend) <= 0), false))
           AND count(DISTINCT item) = v_n,
         array_agg(item ORDER BY item, line_no), array_agg(line_no ORDER BY item, line_no),
         array_agg(ledger__new_id('txn') ORDER BY item, line_no), array_agg(e->>'entry_id' ORDER BY item, line_no),
         array_agg(e->>'environment' ORDER BY item, line_no), array_agg(e->>'reference' ORDER BY item, line_no),
         array_agg(acc_id ORDER BY item, line_no), array_agg(dir ORDER BY item, line_no), array_agg(amt ORDER BY item, line_no),
         array_agg(CASE WHEN kind = 'customer' THEN coalesce(l->>'transaction_type', ledger__txn_type(e->>'type', dir)) END ORDER BY item, line_no),
         array_agg(bal ORDER BY item, line_no), array_agg(dp_after ORDER BY item, line_no), array_agg(cp_after ORDER BY item, line_no)
    INTO v_ok, l_item, l_no, l_id, l_entry, l_env, l_ref, l_acc, l_dir, l_amt, l_tt, l_bal, l_dp, l_cp
  FROM y;

  IF v_ok THEN
    INSERT INTO transfers (id, environment, user_id, from_account_id, to_account_id, asset_code, amount, fee_amount, status,
                           reference, description, metadata, entry_id, estimated_completion, created_at, updated_at, completed_at)
    SELECT v->>'id', v->>'environment', v->>'user_id', v->>'from_account_id', v->>'to_account_id', v->>'asset_code',
           (v->>'amount')::numeric, (v->>'fee_amount')::numeric, 'completed', v->>'reference', v->>'description',
           coalesce(v->'metadata', '{}'), v->>'entry_id', v_now, v_now, v_now, v_now
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(v, n) ORDER BY n;

    -- The request hash is ledger__post's formula for a posted entry that reverses nothing.
    INSERT INTO journal_entries (id, environment, idempotency_key, request_hash, type, status, two_phase, description,
                                 reference, metadata, user_id, created_at, posted_at)
    SELECT e->>'entry_id', e->>'environment', e->>'idempotency_key',
           md5(jsonb_build_array(e->>'type', false, e->>'reference', NULL::text,
             (SELECT jsonb_agg(jsonb_build_array(l->>'account_id', l->>'direction', trim_scale((l->>'amount')::numeric)::text,
                                                 l->>'transaction_type') ORDER BY k)
              FROM jsonb_array_elements(e->'lines') WITH ORDINALITY t(l, k)))::text),
           e->>'type', 'posted', false, e->>'description', e->>'reference', coalesce(e->'metadata', '{}'),
           nullif(e->>'user_id', ''), v_now, v_now
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(v, n), LATERAL (SELECT i.v->'entry' AS e) s
    ORDER BY n;

    -- Each account once, with the sum of its lines (allowances are zero here and stay so).
    UPDATE ledger_accounts la SET
      debits_posted  = la.debits_posted + d.dr,
      credits_posted = la.credits_posted + d.cr,
      updated_at     = v_now
    FROM (SELECT acc, coalesce(sum(amt) FILTER (WHERE dir = 'debit'), 0) AS dr, coalesce(sum(amt) FILTER (WHERE dir = 'credit'), 0) AS cr
          FROM unnest(l_acc, l_dir, l_amt) t(acc, dir, amt) GROUP BY acc) d
    -- id = ANY keeps the plan on the primary key whatever the planner guesses about d.
    WHERE la.id = d.acc AND la.id = ANY (l_acc);

    -- seq is taken in this order: an account's lines in the order they were applied. Each customer
    -- line is a transaction with its created and completed events, as ledger__post writes them.
    WITH t AS (
      SELECT t.*, la.asset_code, la.account_id, la.user_id, p.precision
      FROM unnest(l_id, l_entry, l_no, l_env, l_ref, l_acc, l_dir, l_amt, l_bal, l_tt) WITH ORDINALITY
             t(id, entry, no, env, ref, acc, dir, amt, bal, tt, n)
      JOIN unnest(a) la ON la.id = t.acc JOIN assets p ON p.code = la.asset_code
    ), ins AS (
      INSERT INTO ledger_lines (id, entry_id, line_no, environment, ledger_account_id, asset_code, direction, amount, status,
                                balance_after, account_id, user_id, txn_type, created_at, completed_at)
      SELECT t.id, t.entry, t.no, t.env, t.acc, t.asset_code, t.dir, t.amt, 'posted', t.bal, t.account_id, t.user_id, t.tt, v_now, v_now
      FROM t ORDER BY t.n
      RETURNING ledger_lines AS row
    )
    INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
    SELECT ledger__new_id('evt'), ev.type, t.env, t.user_id, 'transaction', t.id, ledger__txn_json(ins.row, t.ref, t.precision), v_now
    FROM ins JOIN t ON t.id = (ins.row).id
    CROSS JOIN (VALUES ('transaction.created'), ('transaction.completed')) ev(type)
    WHERE t.account_id IS NOT NULL;

    -- Each transfer's events, and each customer account's balance once a transfer is applied.
    INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
    SELECT ev->>'id', ev->>'type', v->>'environment', v->>'user_id', 'transfer', v->>'id', v->'event_data',
           v_now + make_interval(secs => (k - 1) * 0.001)
    FROM jsonb_array_elements(p_items) i(v), jsonb_array_elements(v->'events') WITH ORDINALITY x(ev, k)
    UNION ALL
    SELECT ledger__new_id('evt'), 'account.balance_updated', b.env, (b.la).user_id, 'account', (b.la).account_id,
           ledger__balance_json(b.la, b.precision) || jsonb_build_object('entry_id', b.entry), v_now
    FROM (SELECT DISTINCT ON (t.item, t.acc) t.entry, t.env, p.precision,
                 jsonb_populate_record(la, jsonb_build_object('debits_posted', t.dp, 'credits_posted', t.cp)) AS la
          FROM unnest(l_item, l_entry, l_env, l_acc, l_dp, l_cp) t(item, entry, env, acc, dp, cp)
          JOIN unnest(a) la ON la.id = t.acc JOIN assets p ON p.code = la.asset_code
          WHERE la.kind = 'customer'
          ORDER BY t.item, t.acc) b;

    RETURN jsonb_build_object('now', v_now,
      'results', (SELECT jsonb_agg('{"ok": true}'::jsonb) FROM generate_series(1, v_n)));
  END IF;

  -- Some transfer may be refused: each on its own (the locks are held already).
  RETURN transfers_create_immediate_batch(p_items);
END $$;
