-- A joint-liability group's guarantee fund moves only by the rules of the group's loans (issue 41,
-- item 5): joint liability draws on it for an arrear, and the group's closure returns it to the
-- members. Never by a withdrawal of whoever holds it (the leader owns the account as custodian).
--
-- The fund is frozen for its whole life (domain/microfinance/groups.ts opens it frozen; nobody
-- unfreezes or closes it through domain/accounts: ACCOUNT_HELD_BY_GROUP). Every debit path already
-- meets ledger__rule_status under the ledger's row locks (ledger__post, the set-wise batch,
-- ledger__resolve), and a frozen account still receives, so members keep paying in as before.
--
-- The group's own two movements post through ledger_post_guarantee_fund_entry below: ledger__post
-- with p_force, which is the one exception ledger__rule_status knows, narrowed on both sides of
-- what force allows:
--   * force lets any frozen account pay: here every debited line must be a guarantee fund's ledger
--     account (mf_groups.guarantee_account_id; the group row, not the account's editable metadata),
--     and the entry is never pending;
--   * force lets a no-overdraft account go below zero (recorded as forced_overdraft): here that is
--     refused with INSUFFICIENT_FUNDS, decided by ledger__post's funds check under its row locks,
--     so a fund never goes below zero whatever its caller computed.
-- A new account status (say 'restricted') was the alternative; it would have to be taught to every
-- path that reads accounts.status (cash, basket buys, x402 wallets, transfers' pre-checks, the API
-- enums), while 'frozen' is refused by all of them already.

CREATE INDEX "mf_groups_guarantee_account_idx" ON "mf_groups" ("guarantee_account_id");

CREATE FUNCTION ledger_post_guarantee_fund_entry(p jsonb) RETURNS jsonb
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

-- Funds of groups still open, opened before this migration: frozen now (a closed group's fund is
-- left as it was; groups closed before had no return at closure).
UPDATE "accounts" a SET "status" = 'frozen', "updated_at" = now()
  FROM "mf_groups" g
 WHERE g."guarantee_account_id" = a."id" AND g."status" <> 'closed' AND a."status" = 'active';
UPDATE "ledger_accounts" la SET "status" = 'frozen', "updated_at" = now()
  FROM "mf_groups" g
 WHERE g."guarantee_account_id" = la."account_id" AND g."status" <> 'closed' AND la."status" = 'active';
