-- Cheaper immediate transfers (issue 24 "Faster synchronous transfers"), without changing what is written.
--
-- 1. The natural-language read model (ai_transaction_facts, 20261126040000) was written by a statement
--    trigger on ledger_lines that joined journal_entries, ledger_accounts and bridge_transfers. Its plan
--    is made once per session from the statistics of that moment: a session that started on a young
--    database kept hashing the whole of journal_entries for every posting (seen in a profile: a
--    sequential scan of journal_entries on every transfer). The lookups are now one row per new line
--    (LATERAL ... OFFSET 0 keeps them index probes whatever the statistics say).
-- 2. The transfer batch writes the facts of its own lines in the statement that writes the lines, from
--    what it already holds (no join back to the entries), and tells the trigger so for that statement
--    (a transaction-local setting, cleared after it). The trigger stays for every other posting.
--    The classification and the USD value are each one function, used by both.
-- 3. The outbox's event data (a transfer's row carries its derived events: ~5.6 kB of JSON, ~1.6 kB
--    compressed) is compressed with lz4 instead of pglz where the server has lz4 (pglz took 3 % of the
--    database's time in a profile), and kept in the row instead of a TOAST row and its index entry per
--    transfer (toast_tuple_target 4080: compressed, a transfer's row is ~2.2 kB, above the default 2 kB
--    target; STORAGE MAIN would not do: the toaster then moves the row's small text columns out).
--    The relay reads it from the row.
-- 4. Index entries written for nothing. A transfer with a fee wrote 55 index entries (WAL: 13.4 kB per
--    transfer); these indexes now leave out rows no query looks for, with the same uniqueness:
--    - journal_entries (reverses_entry_id): only reversals (NULL never collides in a unique index);
--    - journal_entries (status, pending_expires_at): only pending entries (the expiry sweep's query,
--      domain/ledger/entries.ts, asks for status = 'pending');
--    - ledger_lines by account and by user: only customer lines (a system line has neither; queries
--      ask for one account or user, which implies NOT NULL).
--    Rebuilt in this migration's transaction, like every index so far (the tables are locked for writes
--    meanwhile).

-- The product's transaction type of a customer ledger line (docs/ai-queries.md).
CREATE FUNCTION ai__fact_type(p_entry_type text, p_entry_metadata jsonb, p_txn_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_entry_type = 'bridge' THEN 'cross_chain_transfer'
              WHEN p_entry_type IN ('swap', 'flash_loan') THEN 'swap'
              WHEN p_entry_type LIKE 'basket%' THEN 'basket_buy'
              WHEN p_entry_metadata ? 'rail_payment_id' THEN 'rail_payment'
              WHEN p_entry_metadata ? 'ilp_payment_id' THEN 'interledger_payment'
              WHEN p_txn_type IN ('transfer_in', 'transfer_out') THEN 'transfer'
              ELSE p_txn_type END
$$;

-- A line's USD value in cents at the latest USD rate of its asset (NULL: the asset has none). Two
-- functions so that a batch looks each asset's rate up once; the second is inlined where it is used.
CREATE FUNCTION ai__usd_rate(p_asset_code text) RETURNS numeric
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT x.rate FROM exchange_rates x
           WHERE x.base_asset = p_asset_code AND x.quote_asset = 'USD' ORDER BY x.as_of DESC, x.id DESC LIMIT 1);
END $$;
CREATE FUNCTION ai__usd_cents(p_amount numeric, p_rate numeric) RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$ SELECT round(p_amount * p_rate * 100)::bigint $$;

CREATE OR REPLACE FUNCTION ai__project_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The statement's writer wrote the facts itself (transfers_create_immediate_batch_setwise).
  IF current_setting('ledger.facts_written', true) = 'on' THEN RETURN NULL; END IF;
  INSERT INTO ai_transaction_facts
  SELECT n.id, n.entry_id, n.user_id, n.environment, n.account_id, n.created_at,
         ai__fact_type(e.type, e.metadata, n.txn_type),
         n.direction = 'credit', n.asset_code, n.amount, ai__usd_cents(n.amount, ai__usd_rate(n.asset_code)), n.status,
         coalesce(b.source_chain, nullif(la.chain, '')), b.destination_chain, b.protocol,
         coalesce(e.metadata->>'transfer_id', b.id, e.metadata->>'rail_payment_id', e.metadata->>'ilp_payment_id'),
         e.description
    FROM new_lines n
    CROSS JOIN LATERAL (SELECT e.type, e.metadata, e.reference, e.description FROM journal_entries e
                         WHERE e.id = n.entry_id OFFSET 0) e
    CROSS JOIN LATERAL (SELECT la.chain FROM ledger_accounts la WHERE la.id = n.ledger_account_id OFFSET 0) la
    LEFT JOIN LATERAL (SELECT b.id, b.source_chain, b.destination_chain, b.protocol FROM bridge_transfers b
                        WHERE e.type = 'bridge' AND b.id = e.reference OFFSET 0) b ON true
   WHERE n.account_id IS NOT NULL AND n.user_id IS NOT NULL;
  RETURN NULL;
END $$;

ALTER TABLE outbox_events SET (toast_tuple_target = 4080);
DO $$
BEGIN
  ALTER TABLE outbox_events ALTER COLUMN data SET COMPRESSION lz4, ALTER COLUMN derived SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this server has no lz4: outbox event data stays pglz-compressed';
END $$;

DROP INDEX journal_entries_reverses_entry_id_key;
CREATE UNIQUE INDEX journal_entries_reverses_entry_id_key ON journal_entries (reverses_entry_id) WHERE reverses_entry_id IS NOT NULL;
DROP INDEX journal_entries_status_pending_expires_at_idx;
CREATE INDEX journal_entries_pending_expires_at_idx ON journal_entries (pending_expires_at) WHERE status = 'pending';
DROP INDEX ledger_lines_account_id_created_at_seq_idx;
CREATE INDEX ledger_lines_account_id_created_at_seq_idx ON ledger_lines (account_id, created_at DESC, seq DESC) WHERE account_id IS NOT NULL;
DROP INDEX ledger_lines_user_id_environment_created_at_seq_idx;
CREATE INDEX ledger_lines_user_id_environment_created_at_seq_idx ON ledger_lines (user_id, environment, created_at DESC, seq DESC) WHERE user_id IS NOT NULL;

-- transfers_create_immediate_batch_setwise as in 20261127110000_operation_request_keys, writing the
-- facts of its lines with them.
CREATE OR REPLACE FUNCTION transfers_create_immediate_batch_setwise(p_items jsonb) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_n      integer := jsonb_array_length(p_items);
  v_now    timestamptz;
  v_ok     boolean;
  v_dup    boolean;
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
  -- A request key already recorded (a retried request whose first run committed) or given twice in
  -- the batch: the one-by-one path answers that transfer with the key's unique violation.
  WITH k AS (SELECT i->>'request_key' AS k FROM jsonb_array_elements(p_items) i WHERE i->>'request_key' IS NOT NULL)
  SELECT (SELECT count(*) <> count(DISTINCT k.k) FROM k) OR EXISTS (SELECT 1 FROM k JOIN transfers t ON t.request_key = k.k)
    INTO v_dup;
  IF v_dup THEN RETURN transfers_create_immediate_batch(p_items); END IF;

  -- Under the locks: lines of one account get times in the order they were applied.
  v_now := clock_timestamp()::timestamptz(3);

  -- The lines with everything the checks and the writes need; v_ok says whether every transfer
  -- passes ledger__post's rules in batch order.
  WITH acc AS (
    SELECT la.id, la.environment AS env, la.asset_code AS asset, la.kind, p.precision AS prec, p.max_balance AS maxbal, la.status,
           la.normal_balance AS normal, la.no_overdraft AS nood, la.overdraft_allowance AS allow,
           la.debits_posted AS dp, la.debits_pending AS dpend, la.credits_posted AS cp, la.credits_pending AS cpend
    FROM unnest(a) la JOIN assets p ON p.code = la.asset_code
  ), ln AS (
    SELECT i.n AS item, l.n AS line_no, i.v->'entry' AS e, l.v AS l, l.v->>'direction' AS dir, l.v->>'amount' AS amt_txt
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(v, n),
         jsonb_array_elements(CASE WHEN jsonb_typeof(i.v->'entry'->'lines') = 'array' THEN i.v->'entry'->'lines' ELSE '[]' END)
           WITH ORDINALITY l(v, n)
  ), x AS (
    SELECT ln.*, acc.id AS acc_id, acc.env AS acc_env, acc.asset, acc.kind, acc.status, acc.normal, acc.nood, acc.allow, acc.maxbal,
           acc.dp, acc.dpend, acc.cp, acc.cpend,
           -- The amount as a value when it passes ledger__post's amount rules (null: refused).
           CASE WHEN ledger__rule_amount_type(jsonb_typeof(ln.l->'amount')) IS NULL
                     AND ledger__rule_amount(ln.amt_txt, acc.prec) IS NULL
                THEN ln.amt_txt::numeric END AS amt
    FROM ln LEFT JOIN acc ON acc.id = ln.l->>'account_id'
  ), y AS (
    SELECT x.*,
           -- The transfer's own rules.
           x.e->>'environment' IN ('sandbox', 'production') AND coalesce(x.e->>'idempotency_key', '') <> ''
           AND coalesce(x.e->>'type', '') <> '' AND coalesce(x.e->>'entry_id', '') <> ''
           AND coalesce(x.e->>'pending', 'false') = 'false'
           AND count(*) OVER (PARTITION BY x.item) >= 2
           -- The line's: its shape, then ledger__post's rules (each NULL when met).
           AND jsonb_typeof(x.l) = 'object' AND x.acc_id IS NOT NULL
           AND ledger__rule_environment(x.e->>'environment', x.acc_env) IS NULL
           AND ledger__rule_direction(x.dir) IS NULL
           AND ledger__rule_asset(x.l ? 'asset_code', x.l->>'asset_code', x.asset) IS NULL
           AND x.amt IS NOT NULL
           AND ledger__rule_txn_type(x.l->>'transaction_type') IS NULL
           AND ledger__rule_status(x.status, x.dir = 'debit', false) IS NULL
           -- This path writes no overdraft allowance.
           AND x.allow = 0
           -- Balanced per asset within the transfer.
           AND ledger__rule_balanced(sum(CASE WHEN x.dir = 'debit' THEN x.amt ELSE -x.amt END) OVER (PARTITION BY x.item, x.asset)) IS NULL AS ok,
           -- Posted totals once this line's transfer is applied (RANGE: all lines of the transfer).
           x.dp + coalesce(sum(CASE WHEN x.dir = 'debit' THEN x.amt END) OVER (PARTITION BY x.acc_id ORDER BY x.item), 0) AS dp_after,
           x.cp + coalesce(sum(CASE WHEN x.dir = 'credit' THEN x.amt END) OVER (PARTITION BY x.acc_id ORDER BY x.item), 0) AS cp_after,
           CASE WHEN x.normal = 'credit' THEN x.cp - x.dp ELSE x.dp - x.cp END
             + sum(CASE WHEN x.dir = x.normal THEN x.amt ELSE -x.amt END)
                 OVER (PARTITION BY x.acc_id ORDER BY x.item, x.line_no ROWS UNBOUNDED PRECEDING) AS bal
    FROM x
  )
  -- coalesce: a null (an unknown account, say) is a no, not a row bool_and skips.
  -- Maximum balance: tested on every line that credits an account's normal side, a little stricter
  -- than ledger__post (which tests only accounts the posting raises); a transfer that fails the
  -- test here is judged by ledger__post on the one-by-one path.
  SELECT bool_and(coalesce(ok AND ledger__rule_funds(nood, allow, ledger__deficit(normal, dp_after, dpend, cp_after, cpend)) IS NULL
                             AND (dir <> normal OR ledger__rule_balance_limit(kind, normal, dp_after, dpend, cp_after, cpend, maxbal) IS NULL),
                           false))
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
                           reference, description, metadata, entry_id, estimated_completion, created_at, updated_at, completed_at,
                           request_key)
    SELECT v->>'id', v->>'environment', v->>'user_id', v->>'from_account_id', v->>'to_account_id', v->>'asset_code',
           (v->>'amount')::numeric, (v->>'fee_amount')::numeric, 'completed', v->>'reference', v->>'description',
           coalesce(v->'metadata', '{}'), v->>'entry_id', v_now, v_now, v_now, v_now, v->>'request_key'
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

    -- The lines, and one outbox row per transfer: transfer.created, its other events in `derived`
    -- (each customer line's transaction.created and .completed, each customer account's balance once
    -- the transfer is applied, then transfer.completed). The relay publishes them in that order.
    -- The lines' facts are written below (the trigger skips this statement).
    PERFORM set_config('ledger.facts_written', 'on', true);
    WITH t AS (
      SELECT t.*, la.asset_code, la.account_id, la.user_id, la.chain, p.precision
      FROM unnest(l_item, l_id, l_entry, l_no, l_env, l_ref, l_acc, l_dir, l_amt, l_bal, l_tt) WITH ORDINALITY
             t(item, id, entry, no, env, ref, acc, dir, amt, bal, tt, n)
      JOIN unnest(a) la ON la.id = t.acc JOIN assets p ON p.code = la.asset_code
    ), ins AS (
      INSERT INTO ledger_lines (id, entry_id, line_no, environment, ledger_account_id, asset_code, direction, amount, status,
                                balance_after, account_id, user_id, txn_type, created_at, completed_at)
      SELECT t.id, t.entry, t.no, t.env, t.acc, t.asset_code, t.dir, t.amt, 'posted', t.bal, t.account_id, t.user_id, t.tt, v_now, v_now
      FROM t ORDER BY t.n
      RETURNING ledger_lines AS row
    ), facts AS (
      -- What ai__project_lines would write for these lines: the entry is the transfer's (no bridge).
      INSERT INTO ai_transaction_facts (line_id, entry_id, user_id, environment, account_id, created_at, type, incoming,
                                        asset_code, amount, usd_cents, status, chain, destination_chain, bridge_protocol,
                                        subject_id, description)
      SELECT t.id, t.entry, t.user_id, t.env, t.account_id, v_now, ai__fact_type(e->>'type', e->'metadata', t.tt),
             t.dir = 'credit', t.asset_code, t.amt, ai__usd_cents(t.amt, r.rate), 'posted', nullif(t.chain, ''), NULL, NULL,
             e->'metadata'->>'transfer_id', e->>'description'
      FROM t JOIN jsonb_array_elements(p_items) WITH ORDINALITY i(v, n) ON i.n = t.item, LATERAL (SELECT i.v->'entry' AS e) s,
           (SELECT d.asset, ai__usd_rate(d.asset) AS rate FROM (SELECT DISTINCT la.asset_code AS asset FROM unnest(a) la) d) r
      WHERE t.account_id IS NOT NULL AND t.user_id IS NOT NULL AND r.asset = t.asset_code
    ), ev AS (
      SELECT t.item, t.n * 2 + ev.o AS ord,
             jsonb_build_object('id', ledger__new_id('evt'), 'type', ev.type, 'user_id', t.user_id, 'aggregate_type', 'transaction',
                                'aggregate_id', t.id, 'data', ledger__txn_json(ins.row, t.ref, t.precision)) AS e
      FROM ins JOIN t ON t.id = (ins.row).id
      CROSS JOIN (VALUES (0, 'transaction.created'), (1, 'transaction.completed')) ev(o, type)
      WHERE t.account_id IS NOT NULL
      UNION ALL
      SELECT b.item, 1000000 + b.k,
             jsonb_build_object('id', ledger__new_id('evt'), 'type', 'account.balance_updated', 'user_id', (b.la).user_id,
                                'aggregate_type', 'account', 'aggregate_id', (b.la).account_id,
                                'data', ledger__balance_json(b.la, b.precision) || jsonb_build_object('entry_id', b.entry))
      FROM (SELECT DISTINCT ON (t.item, t.acc) t.item, t.k, t.entry, p.precision,
                   jsonb_populate_record(la, jsonb_build_object('debits_posted', t.dp, 'credits_posted', t.cp)) AS la
            FROM unnest(l_item, l_entry, l_acc, l_dp, l_cp) WITH ORDINALITY t(item, entry, acc, dp, cp, k)
            JOIN unnest(a) la ON la.id = t.acc JOIN assets p ON p.code = la.asset_code
            WHERE la.kind = 'customer'
            ORDER BY t.item, t.acc) b
    ), evs AS (
      -- Grouped once: a subquery per transfer walked every line of the batch for each (quadratic).
      SELECT ev.item, jsonb_agg(ev.e ORDER BY ev.ord) AS derived FROM ev GROUP BY ev.item
    )
    INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at, derived)
    SELECT v->'events'->0->>'id', v->'events'->0->>'type', v->>'environment', v->>'user_id', 'transfer', v->>'id', v->'event_data', v_now,
           coalesce(evs.derived, '[]'::jsonb)
             || jsonb_build_array(jsonb_build_object('id', v->'events'->1->>'id', 'type', v->'events'->1->>'type', 'user_id', v->>'user_id',
                                                     'aggregate_type', 'transfer', 'aggregate_id', v->>'id', 'data', v->'event_data'))
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(v, n) LEFT JOIN evs ON evs.item = i.n
    ORDER BY i.n;
    PERFORM set_config('ledger.facts_written', 'off', true);

    RETURN jsonb_build_object('now', v_now,
      'results', (SELECT jsonb_agg('{"ok": true}'::jsonb) FROM generate_series(1, v_n)));
  END IF;

  -- Some transfer may be refused: each on its own (the locks are held already).
  RETURN transfers_create_immediate_batch(p_items);
END $$;
