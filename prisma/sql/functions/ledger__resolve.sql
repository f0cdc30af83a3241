-- Moves a locked pending entry to posted or voided: pending totals move to posted (or are
-- released), lines get their status and balance_after, and events are written. Posting it judges
-- account status under the locks with ledger__rule_status (never forced).
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
