-- One definition per ledger rule (issue 14, item 1). The acceptance rules of a posting were written
-- twice: step by step in ledger__post, and again as the `ok` predicate of the set-wise immediate
-- transfer batch (transfers_create_immediate_batch_setwise), which writes lines and balances
-- without calling ledger__post. Each rule is now one small SQL function that returns the refusal
-- code, or NULL when the rule is met:
--
--   ledger__rule_environment  the account belongs to the entry's environment  ENVIRONMENT_MISMATCH
--   ledger__rule_direction    a line is a debit or a credit                    INVALID_ENTRY
--   ledger__rule_asset        a line's asset_code, if given, is the account's  ASSET_MISMATCH
--   ledger__rule_amount_type  the amount is a JSON string                      INVALID_AMOUNT
--   ledger__rule_amount       amount syntax, size, precision and sign          INVALID_AMOUNT,
--                             (mirrors parseAmount, domain/money/amount.ts)    AMOUNT_PRECISION,
--                                                                              AMOUNT_NOT_POSITIVE
--   ledger__rule_txn_type     a line's transaction_type is a known one         INVALID_ENTRY
--   ledger__rule_balanced     debits equal credits per asset                   UNBALANCED
--   ledger__rule_status       closed refuses all; frozen refuses debits        ACCOUNT_CLOSED,
--                             unless forced (claw-back)                        ACCOUNT_FROZEN
--   ledger__rule_funds        a no-overdraft account's deficit stays within    INSUFFICIENT_FUNDS
--                             its allowance
--   ledger__rule_balance_limit  a customer account stays at or under the      BALANCE_LIMIT_EXCEEDED
--                             asset's max_balance (ledger__over_balance_limit)
--
-- ledger__post raises on a non-null code through ledger__err with the same codes and messages as
-- before; the set-wise query tests each for NULL. tests/ledger/rules.test.ts reads both functions
-- from pg_proc and fails when a ledger__rule_* function is called by one and not the other.
-- ledger__resolve (posting a pending entry) judges account status with ledger__rule_status too.
--
-- They are LANGUAGE sql IMMUTABLE, one expression without FROM and not STRICT, so the planner
-- inlines them into the set-wise query (no function call per line) and into ledger__post's
-- expressions. What stays outside the rules: the shape of the request (a line is an object, an
-- entry has a key, a type and two lines, which the set-wise path also tests on its own), and what
-- only one path has: the set-wise path takes no pending entries and no overdraft allowance (it
-- writes none), and tests the maximum balance on every line crediting an account's normal side
-- (ledger__post: on every account the posting raises, reversals exempt); a transfer it refuses is
-- judged by ledger__post on the one-by-one path.

CREATE FUNCTION ledger__rule_environment(p_entry_env text, p_account_env text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_account_env IS DISTINCT FROM p_entry_env THEN 'ENVIRONMENT_MISMATCH' END
$$;

CREATE FUNCTION ledger__rule_direction(p_direction text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_direction IS NULL OR p_direction NOT IN ('debit', 'credit') THEN 'INVALID_ENTRY' END
$$;

-- p_has_asset: the line names an asset_code (a JSON null names one too, and never matches).
CREATE FUNCTION ledger__rule_asset(p_has_asset boolean, p_line_asset text, p_account_asset text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_has_asset AND p_line_asset IS DISTINCT FROM p_account_asset THEN 'ASSET_MISMATCH' END
$$;

-- p_json_type: jsonb_typeof of the line's amount.
CREATE FUNCTION ledger__rule_amount_type(p_json_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_json_type IS DISTINCT FROM 'string' THEN 'INVALID_AMOUNT' END
$$;

-- Amount syntax, in ledger__amount's order: missing, negative, not a plain decimal, more than 20
-- integer digits, more decimals than the asset's precision, zero. The syntax is the one regex of
-- domain/money/amount.ts (AMOUNT_PATTERN); tests/ledger/rules.test.ts checks that both agree on a
-- table of spellings. The cast runs only once the text is a plain decimal of at most 20 digits.
CREATE FUNCTION ledger__rule_amount(p_text text, p_precision integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_text IS NULL THEN 'INVALID_AMOUNT'
    WHEN p_text ~ '^-[0-9]+(\.[0-9]+)?$' THEN 'AMOUNT_NOT_POSITIVE'
    WHEN p_text !~ '^[0-9]+(\.[0-9]+)?$' THEN 'INVALID_AMOUNT'
    WHEN length(ltrim(split_part(p_text, '.', 1), '0')) > 20 THEN 'INVALID_AMOUNT'
    WHEN length(split_part(p_text, '.', 2)) > p_precision THEN 'AMOUNT_PRECISION'
    WHEN p_text::numeric = 0 THEN 'AMOUNT_NOT_POSITIVE'
  END
$$;

-- The message ledger__amount has always given with each refusal of ledger__rule_amount.
CREATE FUNCTION ledger__amount_message(p_text text, p_precision integer, p_code text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_text IS NULL THEN 'amount is required'
    WHEN p_code = 'AMOUNT_PRECISION' THEN 'amount ' || p_text || ' has more than ' || p_precision || ' decimals'
    WHEN p_code = 'AMOUNT_NOT_POSITIVE' AND p_text LIKE '-%' THEN 'amount must be positive: ' || p_text
    WHEN p_code = 'AMOUNT_NOT_POSITIVE' THEN 'amount must be positive'
    WHEN p_text ~ '^[0-9]+(\.[0-9]+)?$' THEN 'amount too large'
    ELSE 'malformed amount: ' || left(p_text, 60)
  END
$$;

-- ledger__amount as in 20261121010000_ledger, deciding with ledger__rule_amount (same codes, same
-- messages). Other ledger functions still parse amounts through it.
CREATE OR REPLACE FUNCTION ledger__amount(p_text text, p_precision integer) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v_code text := ledger__rule_amount(p_text, p_precision);
BEGIN
  IF v_code IS NOT NULL THEN PERFORM ledger__err(v_code, ledger__amount_message(p_text, p_precision, v_code)); END IF;
  RETURN p_text::numeric;
END $$;

-- The customer-visible transaction types: the same list as TRANSACTION_TYPES in
-- domain/ledger/transactions.ts and the CHECK on ledger_lines.txn_type (tests/ledger/rules.test.ts).
CREATE FUNCTION ledger__rule_txn_type(p_txn_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_txn_type NOT IN ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal') THEN 'INVALID_ENTRY' END
$$;

-- p_sum: debits minus credits of one asset in one entry.
CREATE FUNCTION ledger__rule_balanced(p_sum numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_sum <> 0 THEN 'UNBALANCED' END
$$;

-- Account status under the lock. Closed takes nothing; frozen stops new debits, a forced posting (a
-- claw-back reversal) being the one exception. The API's own check before a transfer is
-- statusRefusal in domain/accounts/status.ts.
CREATE FUNCTION ledger__rule_status(p_status text, p_is_debit boolean, p_forced boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_status = 'closed' THEN 'ACCOUNT_CLOSED'
              WHEN p_status = 'frozen' AND p_is_debit AND NOT p_forced THEN 'ACCOUNT_FROZEN' END
$$;

-- Funds, given the account's deficit (ledger__deficit) once the posting is applied.
CREATE FUNCTION ledger__rule_funds(p_no_overdraft boolean, p_allowance numeric, p_deficit numeric) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_no_overdraft AND p_deficit > p_allowance THEN 'INSUFFICIENT_FUNDS' END
$$;

-- Maximum balance, given the account's totals once the posting is applied (the formula is
-- ledger__over_balance_limit, 20261123110000_amount_limits).
CREATE FUNCTION ledger__rule_balance_limit(p_kind text, p_normal text, p_dp numeric, p_dpend numeric, p_cp numeric, p_cpend numeric, p_max numeric)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN ledger__over_balance_limit(p_kind, p_normal, p_dp, p_dpend, p_cp, p_cpend, p_max) THEN 'BALANCE_LIMIT_EXCEEDED' END
$$;

-- ledger__post as in 20261123110000_amount_limits, each rule decided by its ledger__rule_* function
-- (messages and the order of the checks unchanged).
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

-- transfers_create_immediate_batch_setwise as in 20261123110000_amount_limits, its acceptance test
-- made of the same ledger__rule_* functions.
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

-- ledger__resolve as in 20261121010000_ledger (posting or voiding a pending entry): posting it
-- judges account status under the locks with the same ledger__rule_status (never forced).
CREATE OR REPLACE FUNCTION ledger__resolve(p_entry journal_entries, p_to text, p_key text, p_reason text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_now   timestamptz;
  v_bad   record;
  v_accs  text[];
  v_post  boolean := p_to = 'posted';
BEGIN
  SELECT array_agg(DISTINCT ledger_account_id) INTO v_accs FROM ledger_lines WHERE entry_id = p_entry.id;
  PERFORM 1 FROM ledger_accounts WHERE id = ANY (v_accs) ORDER BY id FOR UPDATE;
  v_now := clock_timestamp();

  IF v_post THEN
    SELECT la.id, la.status, ledger__rule_status(la.status, l.direction = 'debit', false) AS code INTO v_bad
    FROM ledger_lines l JOIN ledger_accounts la ON la.id = l.ledger_account_id
    WHERE l.entry_id = p_entry.id AND ledger__rule_status(la.status, l.direction = 'debit', false) IS NOT NULL
    ORDER BY l.line_no LIMIT 1;
    IF FOUND THEN
      PERFORM ledger__err(v_bad.code, 'ledger account ' || v_bad.id || ' is ' || v_bad.status, jsonb_build_object('account_id', v_bad.id));
    END IF;
  END IF;

  WITH l AS (
    SELECT id, ledger_account_id AS acc, direction AS dir, amount AS amt, line_no AS n FROM ledger_lines WHERE entry_id = p_entry.id
  ), d AS (
    SELECT acc, sum(CASE WHEN dir = 'debit' THEN amt ELSE 0 END) dr, sum(CASE WHEN dir = 'credit' THEN amt ELSE 0 END) cr
    FROM l GROUP BY acc
  ), u AS (
    UPDATE ledger_accounts la SET
      debits_pending  = la.debits_pending - d.dr,
      credits_pending = la.credits_pending - d.cr,
      debits_posted   = la.debits_posted  + CASE WHEN v_post THEN d.dr ELSE 0 END,
      credits_posted  = la.credits_posted + CASE WHEN v_post THEN d.cr ELSE 0 END,
      overdraft_allowance = ledger__allowance(la.no_overdraft, la.overdraft_allowance,
        ledger__deficit(la.normal_balance,
          la.debits_posted + CASE WHEN v_post THEN d.dr ELSE 0 END, la.debits_pending - d.dr,
          la.credits_posted + CASE WHEN v_post THEN d.cr ELSE 0 END, la.credits_pending - d.cr), false),
      updated_at = v_now
    FROM d WHERE la.id = d.acc AND la.id = ANY (v_accs)
    RETURNING la.id, la.normal_balance,
              CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted ELSE la.debits_posted - la.credits_posted END AS total
  ), s AS (
    SELECT l.id, u.total - sum(CASE WHEN l.dir = u.normal_balance THEN l.amt ELSE -l.amt END) OVER (PARTITION BY l.acc)
                 + sum(CASE WHEN l.dir = u.normal_balance THEN l.amt ELSE -l.amt END) OVER (PARTITION BY l.acc ORDER BY l.n) AS balance_after,
           l.n
    FROM l JOIN u ON u.id = l.acc
  ), q AS (
    SELECT s.*, CASE WHEN v_post THEN nextval('ledger_lines_seq_seq') END AS new_seq FROM (SELECT * FROM s ORDER BY s.n) s
  )
  UPDATE ledger_lines x SET
    seq = coalesce(q.new_seq, x.seq),
    status = p_to,
    balance_after = CASE WHEN v_post THEN q.balance_after END,
    completed_at = CASE WHEN v_post THEN v_now END
  FROM q WHERE x.id = q.id;

  UPDATE journal_entries SET
    status = p_to,
    posted_at = CASE WHEN v_post THEN v_now END,
    voided_at = CASE WHEN v_post THEN NULL ELSE v_now END,
    void_reason = p_reason,
    resolution_key = p_key
  WHERE id = p_entry.id;

  PERFORM ledger__emit(p_entry.id, v_accs, v_now, false, v_post);
END $$;
