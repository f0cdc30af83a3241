-- Immediate transfers posted set-wise: when every transfer of the batch is certain to succeed, the
-- batch is written with one statement per table (every transfer row, entry, line, outbox event and
-- account total at once, each account updated once). "Certain to succeed" is decided under the
-- batch's row locks by the ledger__rule_* functions ledger__post applies, with each transfer seeing
-- the totals left by the transfers before it. If any transfer might fail, or has anything the
-- set-wise path does not handle (pending, an overdraft allowance, an amount in an unusual spelling,
-- a request key already used), nothing has been written yet and the batch takes
-- transfers_create_immediate_batch: each transfer through ledger__post, which gives every refusal
-- its exact error. The results, rows, balances, events and the entry's idempotency hash are the
-- same either way (tests/transfers/group-commit.test.ts).
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
  v_lines  transfers__batch_line[];
BEGIN
  IF v_n = 0 THEN RETURN jsonb_build_object('now', now()::timestamptz(3), 'results', '[]'::jsonb); END IF;

  -- Every ledger account of the batch, locked in id order (so batches and single postings cannot
  -- deadlock) and read in the same statement.
  -- In the same statement: whether a request key is already recorded (a retried request whose
  -- first run committed) or given twice in the batch; the one-by-one path then answers that
  -- transfer with the key's unique violation.
  WITH k AS (SELECT i->>'request_key' AS k FROM jsonb_array_elements(p_items) i WHERE i->>'request_key' IS NOT NULL)
  SELECT array_agg(s.la ORDER BY (s.la).id),
         (SELECT count(*) <> count(DISTINCT k.k) FROM k) OR EXISTS (SELECT 1 FROM k JOIN transfers t ON t.request_key = k.k)
    INTO a, v_dup
  FROM (SELECT la FROM ledger_accounts la
         WHERE la.id = ANY (ARRAY(SELECT DISTINCT l->>'account_id'
                                  FROM jsonb_array_elements(p_items) i, jsonb_array_elements(i->'entry'->'lines') l))
         ORDER BY la.id FOR UPDATE) s;
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
         -- One ordered aggregate of whole lines: PostgreSQL 15 sorts for each ordered aggregate.
         array_agg(ROW(item, line_no, ledger__new_id('txn'), e->>'entry_id', e->>'environment', e->>'reference', acc_id, dir, amt,
                       CASE WHEN kind = 'customer' THEN coalesce(l->>'transaction_type', ledger__txn_type(e->>'type', dir)) END,
                       bal, dp_after, cp_after)::transfers__batch_line ORDER BY item, line_no)
    INTO v_ok, v_lines
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
          FROM unnest(v_lines) t GROUP BY acc) d
    -- id = ANY keeps the plan on the primary key whatever the planner guesses about d.
    WHERE la.id = d.acc AND la.id = ANY (ARRAY(SELECT t.acc FROM unnest(v_lines) t));

    -- The lines, with their query facts (the columns ai__classify_line fills for other postings; the
    -- entry is the transfer's: no bridge), and one outbox row per transfer: transfer.created, with its
    -- other events in `derived` in the compact form (see the top of this file).
    WITH r AS MATERIALIZED (
      -- Each asset's latest USD rate, looked up once per batch (MATERIALIZED: not once per line).
      SELECT d.asset, ai__usd_rate(d.asset) AS rate FROM (SELECT DISTINCT la.asset_code AS asset FROM unnest(a) la) d
    ), t AS (
      SELECT t.*, la.asset_code, la.account_id, la.user_id, la.chain, p.precision, r.rate,
             (la.account_id IS NOT NULL AND la.user_id IS NOT NULL) AS customer, p_items->(t.item - 1)->'entry' AS e
      FROM unnest(v_lines) WITH ORDINALITY t(item, no, id, entry, env, ref, acc, dir, amt, tt, bal, dp, cp, n)
      JOIN unnest(a) la ON la.id = t.acc JOIN assets p ON p.code = la.asset_code
      JOIN r ON r.asset = la.asset_code
    ), ins AS (
      INSERT INTO ledger_lines (id, entry_id, line_no, environment, ledger_account_id, asset_code, direction, amount, status,
                                balance_after, account_id, user_id, txn_type, created_at, completed_at,
                                fact_type, usd_cents, fact_chain, subject_id, description)
      SELECT t.id, t.entry, t.no, t.env, t.acc, t.asset_code, t.dir, t.amt, 'posted', t.bal, t.account_id, t.user_id, t.tt, v_now, v_now,
             CASE WHEN t.customer THEN ai__fact_type(t.e->>'type', t.e->'metadata', t.tt) END,
             CASE WHEN t.customer THEN ai__usd_cents(t.amt, t.rate) END,
             CASE WHEN t.customer THEN nullif(t.chain, '') END,
             CASE WHEN t.customer THEN t.e->'metadata'->>'transfer_id' END,
             CASE WHEN t.customer THEN t.e->>'description' END
      FROM t ORDER BY t.n
    ), bal AS (
      -- Each customer account's totals once the transfer is applied, in the order of its first line.
      SELECT b.item, jsonb_agg(jsonb_build_array(b.acc, b.dp, b.cp, b.dpend, b.cpend) ORDER BY b.k) AS balances
      FROM (SELECT DISTINCT ON (t.item, t.acc) t.item, t.k, t.acc, t.dp, t.cp, la.debits_pending AS dpend, la.credits_pending AS cpend
            FROM unnest(v_lines) WITH ORDINALITY t(item, no, id, entry, env, ref, acc, dir, amt, tt, bal, dp, cp, k)
            JOIN unnest(a) la ON la.id = t.acc
            WHERE la.kind = 'customer'
            ORDER BY t.item, t.acc, t.k) b
      GROUP BY b.item
    )
    INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at, derived)
    SELECT v->'events'->0->>'id', v->'events'->0->>'type', v->>'environment', v->>'user_id', 'transfer', v->>'id', v->'event_data', v_now,
           jsonb_build_object('entry_id', v->>'entry_id', 'completed', v->'events'->1->>'id', 'balances', coalesce(bal.balances, '[]'::jsonb))
    FROM jsonb_array_elements(p_items) WITH ORDINALITY i(v, n) LEFT JOIN bal ON bal.item = i.n
    ORDER BY i.n;

    -- An expression without a query: PL/pgSQL evaluates it without starting an executor.
    RETURN jsonb_build_object('now', v_now, 'results', to_jsonb(array_fill('{"ok": true}'::jsonb, ARRAY[v_n])));
  END IF;

  -- Some transfer may be refused: each on its own (the locks are held already).
  RETURN transfers_create_immediate_batch(p_items);
END $$;
