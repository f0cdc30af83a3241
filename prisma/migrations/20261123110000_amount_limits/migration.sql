-- Amount limits (issue 13, item 2). Deposits of up to 99,999,999,999,999,999,999.99 were accepted;
-- about a hundred of them filled the shared funding and settlement shards, whose totals were
-- NUMERIC(38,18) (20 integer digits) and only grow, and every later posting on those shards failed
-- with "numeric field overflow" for everyone. Three changes, docs/ledger.md "Amount limits":
--
-- 1. Every asset has a maximum amount per operation (max_amount) and a maximum balance per customer
--    account (max_balance). Requests above max_amount are refused by the API's amount parser
--    (domain/money/amount.ts, 422 AMOUNT_TOO_LARGE); an operator may override both per asset with
--    the ASSET_LIMITS setting, which the application writes into these columns when it loads the
--    assets, so the ledger below and the API judge by the same numbers.
-- 2. max_balance is decided by the ledger under its row locks (ledger__post, and the set-wise batch
--    path, which restates its rules): a posting that raises a customer account's balance, counting
--    inflows still pending, above the maximum is LGR01 BALANCE_LIMIT_EXCEEDED. Reversals are exempt
--    (they return money the account held before, and must always be possible).
-- 3. Totals are sized so that no shared account can overflow. NUMERIC(48,18) holds up to 10^30.
--    A customer operation moves at most max_amount <= 10^15 (CHECK below); anything reaching the
--    ledger at all is at most 10^20 (ledger__amount). Totals grow by one line's amount per line, so
--    overflowing a shard takes 10^15 maximal customer operations on it (at 10,000 postings per
--    second spread over 32 shards, over a hundred thousand years), or 10^10 maximal internal
--    postings. balance_after holds a running total and is widened with them. Should an overflow
--    happen anyway (SQLSTATE 22003), domain/ledger maps it to 422 AMOUNT_OUT_OF_RANGE for the posting
--    that caused it; other postings are unaffected.
--
-- Widening a numeric's precision at the same scale is binary compatible: PostgreSQL changes the
-- column type without rewriting the table or its indexes.

ALTER TABLE "ledger_accounts"
  ALTER COLUMN "debits_pending"      TYPE NUMERIC(48, 18),
  ALTER COLUMN "debits_posted"       TYPE NUMERIC(48, 18),
  ALTER COLUMN "credits_pending"     TYPE NUMERIC(48, 18),
  ALTER COLUMN "credits_posted"      TYPE NUMERIC(48, 18),
  ALTER COLUMN "overdraft_allowance" TYPE NUMERIC(48, 18);
ALTER TABLE "ledger_lines" ALTER COLUMN "balance_after" TYPE NUMERIC(48, 18);

-- Defaults are in the asset's own units, about USD 1 billion per operation and USD 100 billion per
-- account, capped by what exists (BTC) and kept within the asset's precision (ETH has 18 decimals:
-- 10^6 ETH is already 25 digits). A new asset gets the USD numbers until it is given its own.
ALTER TABLE "assets"
  ADD COLUMN "max_amount"  NUMERIC(38, 18) NOT NULL DEFAULT 1000000000,
  ADD COLUMN "max_balance" NUMERIC(38, 18) NOT NULL DEFAULT 100000000000,
  ADD CONSTRAINT "assets_max_amount_range" CHECK ("max_amount" > 0 AND "max_amount" <= 1000000000000000),
  ADD CONSTRAINT "assets_max_balance_range" CHECK ("max_balance" > 0 AND "max_balance" <= 100000000000000000000);

UPDATE "assets" a SET "max_amount" = v.max_amount, "max_balance" = v.max_balance
FROM (VALUES
  ('USD',  1000000000,      100000000000),
  ('EUR',  1000000000,      100000000000),
  ('GBP',  1000000000,      100000000000),
  ('CHF',  1000000000,      100000000000),
  ('JPY',  100000000000,    10000000000000),
  ('XAU',  1000000,         100000000),
  ('BTC',  21000000,        21000000),
  ('ETH',  1000000,         120000000),
  ('USDC', 1000000000,      100000000000),
  ('GCU',  1000000000,      100000000000)
) v(code, max_amount, max_balance)
WHERE a.code = v.code;

-- ledger__post as in 20261121090000_ledger_fewer_statements, with the maximum balance checked after
-- the funds (marked "Maximum balance" below; the lock statement also reads assets.max_balance).
-- The maximum-balance rule, given an account's totals once a posting is applied: a customer
-- account's inflows (posted and pending) less its posted outflows, on its normal side, above the
-- asset's maximum. Used by ledger__post and by transfers_create_immediate_batch_setwise.
CREATE FUNCTION ledger__over_balance_limit(p_kind text, p_normal text, p_dp numeric, p_dpend numeric, p_cp numeric, p_cpend numeric, p_max numeric)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT p_kind = 'customer'
     AND CASE WHEN p_normal = 'credit' THEN p_cp + p_cpend - p_dp ELSE p_dp + p_dpend - p_cp END > p_max
$$;

CREATE OR REPLACE FUNCTION ledger__post(p jsonb, p_reverses text, p_force boolean) RETURNS jsonb
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_env      text := p->>'environment';
  v_key      text := p->>'idempotency_key';
  v_type     text := p->>'type';
  v_pending  boolean := coalesce((p->>'pending')::boolean, false);
  v_timeout  numeric := (p->>'pending_timeout_seconds')::numeric;
  v_hash     text;
  v_id       text;
  v_now      timestamptz;
  v_found    journal_entries%ROWTYPE;
  r          record;
  i          integer;
  j          integer;
  k          integer;
  v_n        integer;
  v_deficit  numeric;
  v_forced   jsonb;
  v_code     text;
  -- The lines as given (one statement reads them all).
  l_type     text[];
  l_acc      text[];
  l_dir      text[];
  l_amt_txt  text[];
  l_amt_type text[];
  l_tt       text[];
  l_has_asset boolean[];
  l_asset    text[];
  -- The lines as posted.
  v_amts     numeric[] := '{}';
  v_tts      text[] := '{}';
  -- The locked accounts, sorted by id, with what the checks need.
  a_id       text[] := '{}';
  a_env      text[] := '{}';
  a_asset    text[] := '{}';
  a_kind     text[] := '{}';
  a_prec     integer[] := '{}';
  a_status   text[] := '{}';
  a_normal   text[] := '{}';
  a_nood     boolean[] := '{}';
  a_allow    numeric[] := '{}';
  a_dp       numeric[] := '{}';
  a_dpend    numeric[] := '{}';
  a_cp       numeric[] := '{}';
  a_cpend    numeric[] := '{}';
  a_dr       numeric[] := '{}';
  a_cr       numeric[] := '{}';
  a_maxbal   numeric[] := '{}';
  -- Per asset sum of debits minus credits (balance check).
  s_asset    text[] := '{}';
  s_sum      numeric[] := '{}';
BEGIN
  IF v_env IS NULL OR v_env NOT IN ('sandbox', 'production') THEN
    PERFORM ledger__err('INVALID_ENTRY', 'environment must be sandbox or production');
  END IF;
  IF coalesce(v_key, '') = '' THEN PERFORM ledger__err('INVALID_ENTRY', 'idempotency key is required'); END IF;
  IF coalesce(v_type, '') = '' THEN PERFORM ledger__err('INVALID_ENTRY', 'entry type is required'); END IF;
  IF jsonb_typeof(p->'lines') IS DISTINCT FROM 'array' OR jsonb_array_length(p->'lines') < 2 THEN
    PERFORM ledger__err('INVALID_ENTRY', 'an entry needs at least two lines');
  END IF;
  IF v_pending AND v_timeout IS NOT NULL AND v_timeout <= 0 THEN
    PERFORM ledger__err('INVALID_ENTRY', 'pending timeout must be positive');
  END IF;

  -- Content that must match when the key is replayed (amounts compared by value). Same formula as
  -- before: stored hashes of earlier entries stay valid.
  v_hash := md5(jsonb_build_array(v_type, v_pending, p->>'reference', p_reverses,
    (SELECT jsonb_agg(jsonb_build_array(l->>'account_id', l->>'direction',
        CASE WHEN l->>'amount' ~ '^[0-9]{1,40}(\.[0-9]{1,40})?$' THEN trim_scale((l->>'amount')::numeric)::text ELSE l->>'amount' END,
        l->>'transaction_type') ORDER BY n)
     FROM jsonb_array_elements(p->'lines') WITH ORDINALITY t(l, n)))::text);

  -- Replays are the common retry path: answer them before taking any lock.
  SELECT * INTO v_found FROM journal_entries WHERE environment = v_env AND idempotency_key = v_key;
  IF FOUND THEN RETURN ledger__replay(v_found, v_hash); END IF;

  -- Every field of every line in one statement (a non-object line reads as nulls; it fails below).
  SELECT array_agg(jsonb_typeof(l) ORDER BY n),
         array_agg(CASE WHEN jsonb_typeof(l) = 'object' THEN l->>'account_id' END ORDER BY n),
         array_agg(CASE WHEN jsonb_typeof(l) = 'object' THEN l->>'direction' END ORDER BY n),
         array_agg(CASE WHEN jsonb_typeof(l) = 'object' THEN l->>'amount' END ORDER BY n),
         array_agg(CASE WHEN jsonb_typeof(l) = 'object' THEN jsonb_typeof(l->'amount') END ORDER BY n),
         array_agg(CASE WHEN jsonb_typeof(l) = 'object' THEN l->>'transaction_type' END ORDER BY n),
         array_agg(jsonb_typeof(l) = 'object' AND l ? 'asset_code' ORDER BY n),
         array_agg(CASE WHEN jsonb_typeof(l) = 'object' THEN l->>'asset_code' END ORDER BY n)
    INTO l_type, l_acc, l_dir, l_amt_txt, l_amt_type, l_tt, l_has_asset, l_asset
  FROM jsonb_array_elements(p->'lines') WITH ORDINALITY t(l, n);
  v_n := array_length(l_type, 1);

  -- All row locks at once, in id order, so concurrent postings cannot deadlock; the same statement
  -- reads what the checks below need. (An invalid entry takes its locks only for those checks.)
  FOR r IN
    SELECT la.id, la.environment, la.asset_code, la.kind, la.status, la.normal_balance, la.no_overdraft,
           la.overdraft_allowance, la.debits_posted, la.debits_pending, la.credits_posted, la.credits_pending, a.precision, a.max_balance
    FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
    WHERE la.id = ANY (l_acc)
    ORDER BY la.id FOR UPDATE OF la
  LOOP
    a_id := a_id || r.id;  a_env := a_env || r.environment;  a_asset := a_asset || r.asset_code;
    a_kind := a_kind || r.kind;  a_prec := a_prec || r.precision;  a_status := a_status || r.status;
    a_normal := a_normal || r.normal_balance;  a_nood := a_nood || r.no_overdraft;
    a_allow := a_allow || r.overdraft_allowance;
    a_dp := a_dp || r.debits_posted;  a_dpend := a_dpend || r.debits_pending;
    a_cp := a_cp || r.credits_posted;  a_cpend := a_cpend || r.credits_pending;
    a_dr := a_dr || 0::numeric;  a_cr := a_cr || 0::numeric;  a_maxbal := a_maxbal || r.max_balance;
  END LOOP;
  -- Taken under the locks, so created_at follows the order in which lines hit each account.
  v_now := clock_timestamp();

  -- Line checks, in line order, as before.
  FOR i IN 1 .. v_n LOOP
    IF l_type[i] <> 'object' THEN PERFORM ledger__err('INVALID_ENTRY', 'a line must be an object'); END IF;
    j := array_position(a_id, l_acc[i]);
    IF j IS NULL THEN
      PERFORM ledger__err('ACCOUNT_NOT_FOUND', 'ledger account ' || coalesce(l_acc[i], 'null') || ' not found');
    END IF;
    IF a_env[j] <> v_env THEN
      PERFORM ledger__err('ENVIRONMENT_MISMATCH', 'ledger account ' || a_id[j] || ' belongs to ' || a_env[j]);
    END IF;
    IF coalesce(l_dir[i], '') NOT IN ('debit', 'credit') THEN
      PERFORM ledger__err('INVALID_ENTRY', 'direction must be debit or credit');
    END IF;
    IF l_has_asset[i] AND l_asset[i] IS DISTINCT FROM a_asset[j] THEN
      PERFORM ledger__err('ASSET_MISMATCH', 'ledger account ' || a_id[j] || ' holds ' || a_asset[j] || ', not ' || coalesce(l_asset[i], 'null'));
    END IF;
    IF l_amt_type[i] IS DISTINCT FROM 'string' THEN
      PERFORM ledger__err('INVALID_AMOUNT', 'amount must be a decimal string');
    END IF;
    IF l_tt[i] IS NOT NULL AND l_tt[i] NOT IN ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal') THEN
      PERFORM ledger__err('INVALID_ENTRY', 'unknown transaction type ' || l_tt[i]);
    END IF;
    v_amts := v_amts || ledger__amount(l_amt_txt[i], a_prec[j]);
    v_tts  := v_tts || CASE WHEN a_kind[j] = 'customer' THEN coalesce(l_tt[i], ledger__txn_type(v_type, l_dir[i])) END;
    IF l_dir[i] = 'debit' THEN a_dr[j] := a_dr[j] + v_amts[i]; ELSE a_cr[j] := a_cr[j] + v_amts[i]; END IF;
    k := array_position(s_asset, a_asset[j]);
    IF k IS NULL THEN
      s_asset := s_asset || a_asset[j];
      s_sum := s_sum || 0::numeric;
      k := array_length(s_asset, 1);
    END IF;
    s_sum[k] := s_sum[k] + CASE WHEN l_dir[i] = 'debit' THEN v_amts[i] ELSE -v_amts[i] END;
  END LOOP;

  FOR k IN 1 .. coalesce(array_length(s_asset, 1), 0) LOOP
    IF s_sum[k] <> 0 THEN
      PERFORM ledger__err('UNBALANCED', 'debits and credits of ' || s_asset[k] || ' differ', jsonb_build_object('asset_code', s_asset[k]));
    END IF;
  END LOOP;

  -- A concurrent reversal of the same entry holds the same accounts, so it has committed by now.
  IF p_reverses IS NOT NULL AND EXISTS (SELECT 1 FROM journal_entries WHERE reverses_entry_id = p_reverses) THEN
    SELECT * INTO v_found FROM journal_entries WHERE environment = v_env AND idempotency_key = v_key;
    IF FOUND THEN RETURN ledger__replay(v_found, v_hash); END IF;
    PERFORM ledger__err('ALREADY_REVERSED', 'entry ' || p_reverses || ' is already reversed');
  END IF;

  -- Status under the lock, so a concurrent freeze or close is either fully before or after us.
  -- Frozen stops new debits; a forced reversal (claw-back) is the one exception.
  FOR i IN 1 .. v_n LOOP
    j := array_position(a_id, l_acc[i]);
    IF a_status[j] = 'closed' OR (a_status[j] = 'frozen' AND l_dir[i] = 'debit' AND NOT p_force) THEN
      PERFORM ledger__err(CASE WHEN a_status[j] = 'closed' THEN 'ACCOUNT_CLOSED' ELSE 'ACCOUNT_FROZEN' END,
        'ledger account ' || a_id[j] || ' is ' || a_status[j], jsonb_build_object('account_id', a_id[j]));
    END IF;
  END LOOP;

  -- Funds: the CHECK constraint would refuse the update anyway; checking first gives a clean error
  -- and tells a forced reversal how far below zero it goes (accounts in id order).
  FOR j IN 1 .. array_length(a_id, 1) LOOP
    CONTINUE WHEN NOT a_nood[j];
    v_deficit := ledger__deficit(a_normal[j],
      a_dp[j] + CASE WHEN v_pending THEN 0 ELSE a_dr[j] END, a_dpend[j] + CASE WHEN v_pending THEN a_dr[j] ELSE 0 END,
      a_cp[j] + CASE WHEN v_pending THEN 0 ELSE a_cr[j] END, a_cpend[j] + CASE WHEN v_pending THEN a_cr[j] ELSE 0 END);
    IF v_deficit > a_allow[j] THEN
      v_forced := coalesce(v_forced, '[]'::jsonb)
        || jsonb_build_array(jsonb_build_object('account_id', a_id[j], 'amount', round(v_deficit - a_allow[j], a_prec[j])::text));
    END IF;
  END LOOP;
  IF v_forced IS NOT NULL AND NOT p_force THEN
    PERFORM ledger__err('INSUFFICIENT_FUNDS', 'insufficient funds in ledger account ' || (v_forced->0->>'account_id'),
      jsonb_build_object('shortfall', v_forced));
  END IF;

  -- Maximum balance: a posting that raises a customer account's balance may not take it above its
  -- asset's max_balance (reversals excepted). Inflows still pending count, since they are posted
  -- later without another check; reserved outflows do not, since they may be voided.
  IF p_reverses IS NULL THEN
    FOR j IN 1 .. array_length(a_id, 1) LOOP
      CONTINUE WHEN CASE WHEN a_normal[j] = 'credit' THEN a_cr[j] - a_dr[j] ELSE a_dr[j] - a_cr[j] END <= 0;
      IF ledger__over_balance_limit(a_kind[j], a_normal[j],
           a_dp[j] + CASE WHEN v_pending THEN 0 ELSE a_dr[j] END, a_dpend[j] + CASE WHEN v_pending THEN a_dr[j] ELSE 0 END,
           a_cp[j] + CASE WHEN v_pending THEN 0 ELSE a_cr[j] END, a_cpend[j] + CASE WHEN v_pending THEN a_cr[j] ELSE 0 END,
           a_maxbal[j]) THEN
        PERFORM ledger__err('BALANCE_LIMIT_EXCEEDED',
          'ledger account ' || a_id[j] || ' would hold more than the maximum balance of ' || round(a_maxbal[j], a_prec[j]) || ' ' || a_asset[j],
          jsonb_build_object('account_id', a_id[j], 'asset_code', a_asset[j], 'max_balance', round(a_maxbal[j], a_prec[j])::text));
      END IF;
    END LOOP;
  END IF;

  -- A caller may choose the id (so rows written before the posting can reference it).
  v_id := coalesce(nullif(p->>'entry_id', ''), ledger__new_id('je'));
  INSERT INTO journal_entries (id, environment, idempotency_key, request_hash, type, status, two_phase, description,
                               reference, metadata, user_id, reverses_entry_id, forced_overdraft, pending_expires_at, created_at, posted_at)
  VALUES (v_id, v_env, v_key, v_hash, v_type, CASE WHEN v_pending THEN 'pending' ELSE 'posted' END, v_pending,
          p->>'description', p->>'reference', coalesce(p->'metadata', '{}'), nullif(p->>'user_id', ''), p_reverses, v_forced,
          CASE WHEN v_pending AND v_timeout IS NOT NULL THEN v_now + make_interval(secs => v_timeout) END,
          v_now, CASE WHEN v_pending THEN NULL ELSE v_now END)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    -- A concurrent call with the same key (or reversing the same entry) committed first.
    SELECT * INTO v_found FROM journal_entries WHERE environment = v_env AND idempotency_key = v_key;
    IF FOUND THEN RETURN ledger__replay(v_found, v_hash); END IF;
    PERFORM ledger__err('ALREADY_REVERSED', 'entry ' || p_reverses || ' is already reversed');
  END IF;

  -- Totals, lines (with balance_after) and outbox events in one statement.
  WITH l AS (
    SELECT acc, dir, amt, tt, n FROM unnest(l_acc, l_dir, v_amts, v_tts) WITH ORDINALITY t(acc, dir, amt, tt, n)
  ), d AS (
    SELECT t.acc, t.dr, t.cr, t.prec FROM unnest(a_id, a_dr, a_cr, a_prec) t(acc, dr, cr, prec)
  ), u AS (
    UPDATE ledger_accounts la SET
      debits_pending  = la.debits_pending  + CASE WHEN v_pending THEN d.dr ELSE 0 END,
      credits_pending = la.credits_pending + CASE WHEN v_pending THEN d.cr ELSE 0 END,
      debits_posted   = la.debits_posted   + CASE WHEN v_pending THEN 0 ELSE d.dr END,
      credits_posted  = la.credits_posted  + CASE WHEN v_pending THEN 0 ELSE d.cr END,
      overdraft_allowance = ledger__allowance(la.no_overdraft, la.overdraft_allowance,
        ledger__deficit(la.normal_balance,
          la.debits_posted + CASE WHEN v_pending THEN 0 ELSE d.dr END, la.debits_pending + CASE WHEN v_pending THEN d.dr ELSE 0 END,
          la.credits_posted + CASE WHEN v_pending THEN 0 ELSE d.cr END, la.credits_pending + CASE WHEN v_pending THEN d.cr ELSE 0 END),
        p_force),
      updated_at = v_now
    -- id = ANY keeps the plan on the primary key whatever the planner guesses about d.
    FROM d WHERE la.id = d.acc AND la.id = ANY (a_id)
    RETURNING la AS row, d.prec, la.id, la.normal_balance, la.asset_code, la.account_id, la.user_id, la.kind,
              CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted ELSE la.debits_posted - la.credits_posted END AS total
  ), s AS (
    SELECT l.*, u.asset_code, u.account_id, u.user_id, u.total, u.prec,
           CASE WHEN l.dir = u.normal_balance THEN l.amt ELSE -l.amt END AS signed
    FROM l JOIN u ON u.id = l.acc
  ), ins AS (
    INSERT INTO ledger_lines (id, entry_id, line_no, environment, ledger_account_id, asset_code, direction, amount, status,
                              balance_after, account_id, user_id, txn_type, created_at, completed_at)
    SELECT ledger__new_id('txn'), v_id, s.n, v_env, s.acc, s.asset_code, s.dir, s.amt,
           CASE WHEN v_pending THEN 'pending' ELSE 'posted' END,
           CASE WHEN v_pending THEN NULL
                ELSE s.total - sum(s.signed) OVER (PARTITION BY s.acc) + sum(s.signed) OVER (PARTITION BY s.acc ORDER BY s.n) END,
           s.account_id, s.user_id, s.tt, v_now, CASE WHEN v_pending THEN NULL ELSE v_now END
    FROM s ORDER BY s.n
    RETURNING ledger_lines AS row, ledger_lines.line_no, ledger_lines.account_id, ledger_lines.user_id, ledger_lines.id
  ), txn_events AS (
    INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
    SELECT ledger__new_id('evt'), ev.type, v_env, ins.user_id, 'transaction', ins.id,
           ledger__txn_json(ins.row, p->>'reference', (SELECT s.prec FROM s WHERE s.n = ins.line_no)), v_now
    FROM ins CROSS JOIN (VALUES (1, 'transaction.created'), (2, 'transaction.completed')) ev(ord, type)
    WHERE ins.account_id IS NOT NULL AND (ev.ord = 1 OR NOT v_pending)
    ORDER BY ins.line_no, ev.ord
  )
  INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
  SELECT ledger__new_id('evt'), 'account.balance_updated', v_env, u.user_id, 'account', u.account_id,
         ledger__balance_json(u.row, u.prec) || jsonb_build_object('entry_id', v_id), v_now
  FROM u WHERE u.kind = 'customer'
  ORDER BY u.id;

  RETURN ledger_entry_json(v_id);
END $$;

-- transfers_create_immediate_batch_setwise as in 20261121110000_transfer_batch_setwise, with the
-- maximum-balance rule in its acceptance test (marked "Maximum balance" below).
CREATE OR REPLACE FUNCTION transfers_create_immediate_batch_setwise(p_items jsonb) RETURNS jsonb
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
  -- Maximum balance: tested on every line that credits an account's normal side, a little stricter
  -- than ledger__post (which tests only accounts the posting raises); a transfer that fails the
  -- test here is judged by ledger__post on the one-by-one path.
  SELECT bool_and(coalesce(ok AND (NOT nood OR ledger__deficit(normal, dp_after, dpend, cp_after, cpend) <= 0)
                             AND (dir <> normal OR NOT ledger__over_balance_limit(kind, normal, dp_after, dpend, cp_after, cpend, maxbal)),
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
