-- The read model natural-language queries run over (docs/ai-queries.md): one narrow row per
-- customer ledger line, classified once when the line is written instead of on every question.
-- The ledger stays the one source: these rows are written by triggers in the same transaction
-- as the lines, so a question never sees a line without its fact or a fact without its line.
--
-- What can still change after posting is not stored here: a line's status is copied when the
-- ledger resolves a pending entry, and review holds, sanctions holds and Travel Rule failures
-- are joined when a question is asked (they are few).
CREATE TABLE "ai_transaction_facts" (
  "line_id"           TEXT PRIMARY KEY,
  "entry_id"          TEXT NOT NULL,
  "user_id"           TEXT NOT NULL,
  "environment"       TEXT NOT NULL,
  "account_id"        TEXT NOT NULL,
  "created_at"        TIMESTAMPTZ(3) NOT NULL,
  -- The product's transaction type (deposit, transfer, cross_chain_transfer, swap, ...).
  "type"              TEXT,
  "incoming"          BOOLEAN NOT NULL,
  "asset_code"        TEXT NOT NULL,
  "amount"            NUMERIC(38, 18) NOT NULL,
  -- The USD value in cents at the latest rate when the line was written (NULL: no USD rate).
  "usd_cents"         BIGINT,
  "status"            TEXT NOT NULL,
  -- A bridge's source chain, or the line's chain book; NULL is the asset's home chain.
  "chain"             TEXT,
  "destination_chain" TEXT,
  "bridge_protocol"   TEXT,
  -- The transfer, bridge or payment the line belongs to: review and compliance holds join on it.
  "subject_id"        TEXT,
  "description"       TEXT
);
CREATE INDEX "ai_transaction_facts_user_idx" ON "ai_transaction_facts" ("user_id", "environment", "created_at" DESC, "line_id" DESC);
CREATE INDEX "ai_transaction_facts_account_idx" ON "ai_transaction_facts" ("account_id", "created_at" DESC);
CREATE INDEX "ai_transaction_facts_type_idx" ON "ai_transaction_facts" ("user_id", "environment", "type", "created_at" DESC, "line_id" DESC);
-- Pending and voided lines are few next to posted history: questions about them walk only these.
CREATE INDEX "ai_transaction_facts_unposted_idx" ON "ai_transaction_facts" ("user_id", "environment", "created_at" DESC) WHERE "status" <> 'posted';

-- The classification, written once and used twice: by the trigger over the statement's new lines
-- (plain SQL there: a function over an array of rows cost the ledger 0.4 ms a posting) and by the
-- backfill over the lines written before this migration (valued at today's rates, the best known).
DO $do$
DECLARE
  v_select CONSTANT text := $q$
  SELECT n.id, n.entry_id, n.user_id, n.environment, n.account_id, n.created_at,
         CASE WHEN e.type = 'bridge' THEN 'cross_chain_transfer'
              WHEN e.type IN ('swap', 'flash_loan') THEN 'swap'
              WHEN e.type LIKE 'basket%%' THEN 'basket_buy'
              WHEN e.metadata ? 'rail_payment_id' THEN 'rail_payment'
              WHEN e.metadata ? 'ilp_payment_id' THEN 'interledger_payment'
              WHEN n.txn_type IN ('transfer_in', 'transfer_out') THEN 'transfer'
              ELSE n.txn_type END,
         n.direction = 'credit', n.asset_code, n.amount,
         (SELECT round(n.amount * x.rate * 100)::bigint FROM exchange_rates x
           WHERE x.base_asset = n.asset_code AND x.quote_asset = 'USD' ORDER BY x.as_of DESC, x.id DESC LIMIT 1),
         n.status,
         coalesce(b.source_chain, nullif(la.chain, '')),
         b.destination_chain,
         b.protocol,
         coalesce(e.metadata->>'transfer_id', b.id, e.metadata->>'rail_payment_id', e.metadata->>'ilp_payment_id'),
         e.description
    FROM %s n
    JOIN journal_entries e ON e.id = n.entry_id
    JOIN ledger_accounts la ON la.id = n.ledger_account_id
    LEFT JOIN bridge_transfers b ON e.type = 'bridge' AND b.id = e.reference
   WHERE n.account_id IS NOT NULL AND n.user_id IS NOT NULL$q$;
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION ai__project_lines() RETURNS trigger LANGUAGE plpgsql AS $b$
    BEGIN
      INSERT INTO ai_transaction_facts %s;
      RETURN NULL;
    END $b$$f$, format(v_select, 'new_lines'));
  EXECUTE 'INSERT INTO ai_transaction_facts ' || format(v_select, 'ledger_lines');
END $do$;

-- Lines change only from pending to posted or voided (the ledger's immutability guard).
CREATE FUNCTION ai__project_line_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE ai_transaction_facts f SET status = n.status FROM new_lines n WHERE f.line_id = n.id AND f.status <> n.status;
  RETURN NULL;
END $$;

CREATE TRIGGER "ledger_lines_ai_facts" AFTER INSERT ON "ledger_lines"
  REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION ai__project_lines();
CREATE TRIGGER "ledger_lines_ai_facts_status" AFTER UPDATE ON "ledger_lines"
  REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION ai__project_line_status();

-- The few rows joined at question time, found without scanning history.
CREATE INDEX "compliance_holds_payment_user_idx" ON "compliance_holds" ("user_id", "environment")
  WHERE "subject_kind" IN ('rail_payment', 'ilp_payment') AND "status" IN ('open', 'rejected', 'expired');
CREATE INDEX "travel_rule_checks_failed_user_idx" ON "travel_rule_checks" ("user_id", "environment") WHERE NOT "is_compliant";
