CREATE OR REPLACE FUNCTION ledger_post_guarantee_fund_entry(p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_bad   text;
  v_short jsonb;
  r       jsonb;
BEGIN
  IF coalesce(p->>'pending', 'false') <> 'false' THEN
    PERFORM ledger__err('INVALID_ENTRY', 'a guarantee fund posting is never pending');
  END IF;
  SELECT coalesce(l->>'account_id', 'null') INTO v_bad
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(p->'lines') = 'array' THEN p->'lines' ELSE '[]' END) l
  WHERE jsonb_typeof(l) = 'object' AND l->>'direction' = 'debit'
    AND NOT EXISTS (SELECT 1 FROM ledger_accounts la JOIN mf_groups g ON g.guarantee_account_id = la.account_id
                     WHERE la.id = l->>'account_id' AND la.kind = 'customer')
  LIMIT 1;
  IF v_bad IS NOT NULL THEN
    PERFORM ledger__err('INVALID_ENTRY', 'ledger account ' || v_bad || ' is not a guarantee fund; only funds are debited by this posting');
  END IF;
  r := ledger__post(p, NULL, true);
  SELECT forced_overdraft INTO v_short FROM journal_entries WHERE id = r->>'id';
  IF v_short IS NOT NULL THEN
    -- Raised after the writes: the statement (and the caller's transaction) rolls them back.
    PERFORM ledger__err('INSUFFICIENT_FUNDS', 'insufficient funds in ledger account ' || (v_short->0->>'account_id'),
      jsonb_build_object('shortfall', v_short));
  END IF;
  RETURN r;
END $$;
