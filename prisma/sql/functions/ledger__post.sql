-- Posting: one call validates, locks the accounts (sorted, one statement), checks balance and
-- funds, writes header + lines (with balance_after) + totals + outbox events, and returns the
-- entry as JSON. Runs in the caller's transaction, or its own when called in autocommit. Each rule
-- is decided by its ledger__rule_* function, shared with transfers_create_immediate_batch_setwise
-- (tests/ledger/rules.test.ts).
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
    v_code := ledger__rule_environment(v_env, a_env[j]);
    IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, 'ledger account ' || a_id[j] || ' belongs to ' || a_env[j]); END IF;
    v_code := ledger__rule_direction(l_dir[i]);
    IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, 'direction must be debit or credit'); END IF;
    v_code := ledger__rule_asset(l_has_asset[i], l_asset[i], a_asset[j]);
    IF v_code IS NOT NULL THEN
      PERFORM ledger__err(v_code, 'ledger account ' || a_id[j] || ' holds ' || a_asset[j] || ', not ' || coalesce(l_asset[i], 'null'));
    END IF;
    v_code := ledger__rule_amount_type(l_amt_type[i]);
    IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, 'amount must be a decimal string'); END IF;
    v_code := ledger__rule_txn_type(l_tt[i]);
    IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, 'unknown transaction type ' || l_tt[i]); END IF;
    v_code := ledger__rule_amount(l_amt_txt[i], a_prec[j]);
    IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, ledger__amount_message(l_amt_txt[i], a_prec[j], v_code)); END IF;
    v_amts := v_amts || l_amt_txt[i]::numeric;
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
    v_code := ledger__rule_balanced(s_sum[k]);
    IF v_code IS NOT NULL THEN
      PERFORM ledger__err(v_code, 'debits and credits of ' || s_asset[k] || ' differ', jsonb_build_object('asset_code', s_asset[k]));
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
    v_code := ledger__rule_status(a_status[j], l_dir[i] = 'debit', p_force);
    IF v_code IS NOT NULL THEN
      PERFORM ledger__err(v_code, 'ledger account ' || a_id[j] || ' is ' || a_status[j], jsonb_build_object('account_id', a_id[j]));
    END IF;
  END LOOP;

  -- Funds: the CHECK constraint would refuse the update anyway; checking first gives a clean error
  -- and tells a forced reversal how far below zero it goes (accounts in id order). A forced posting
  -- records the shortfall instead of being refused.
  FOR j IN 1 .. array_length(a_id, 1) LOOP
    CONTINUE WHEN NOT a_nood[j];
    v_deficit := ledger__deficit(a_normal[j],
      a_dp[j] + CASE WHEN v_pending THEN 0 ELSE a_dr[j] END, a_dpend[j] + CASE WHEN v_pending THEN a_dr[j] ELSE 0 END,
      a_cp[j] + CASE WHEN v_pending THEN 0 ELSE a_cr[j] END, a_cpend[j] + CASE WHEN v_pending THEN a_cr[j] ELSE 0 END);
    IF ledger__rule_funds(a_nood[j], a_allow[j], v_deficit) IS NOT NULL THEN
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
      v_code := ledger__rule_balance_limit(a_kind[j], a_normal[j],
           a_dp[j] + CASE WHEN v_pending THEN 0 ELSE a_dr[j] END, a_dpend[j] + CASE WHEN v_pending THEN a_dr[j] ELSE 0 END,
           a_cp[j] + CASE WHEN v_pending THEN 0 ELSE a_cr[j] END, a_cpend[j] + CASE WHEN v_pending THEN a_cr[j] ELSE 0 END,
           a_maxbal[j]);
      IF v_code IS NOT NULL THEN
        PERFORM ledger__err(v_code,
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
