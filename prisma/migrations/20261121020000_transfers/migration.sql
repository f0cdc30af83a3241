-- Transfers between customer accounts, and the fee schedule they are charged from.

CREATE TABLE "fee_schedules" (
  "id"         TEXT PRIMARY KEY,
  "operation"  TEXT NOT NULL CHECK ("operation" IN ('transfer')),
  "asset_code" TEXT NOT NULL REFERENCES "assets" ("code"),
  -- fee = clamp(fixed_fee + amount * rate_bps / 10000, min_fee, max_fee), rounded half-up to the asset's precision
  "fixed_fee"  NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("fixed_fee" >= 0),
  "rate_bps"   INTEGER NOT NULL DEFAULT 0 CHECK ("rate_bps" BETWEEN 0 AND 10000),
  "min_fee"    NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("min_fee" >= 0),
  "max_fee"    NUMERIC(38, 18),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "fee_schedules_operation_asset_code_key" ON "fee_schedules" ("operation", "asset_code");

-- Transfers between accounts: 0.1 %, capped at about 5 USD in each asset.
INSERT INTO "fee_schedules" ("id", "operation", "asset_code", "rate_bps", "max_fee") VALUES
  ('fee_transfer_usd',  'transfer', 'USD',  10, 5),
  ('fee_transfer_eur',  'transfer', 'EUR',  10, 5),
  ('fee_transfer_gbp',  'transfer', 'GBP',  10, 4),
  ('fee_transfer_chf',  'transfer', 'CHF',  10, 5),
  ('fee_transfer_jpy',  'transfer', 'JPY',  10, 750),
  ('fee_transfer_xau',  'transfer', 'XAU',  10, 0.002),
  ('fee_transfer_btc',  'transfer', 'BTC',  10, 0.00005),
  ('fee_transfer_eth',  'transfer', 'ETH',  10, 0.0015),
  ('fee_transfer_usdc', 'transfer', 'USDC', 10, 5),
  ('fee_transfer_gcu',  'transfer', 'GCU',  10, 5);

CREATE TABLE "transfers" (
  "id"                    TEXT PRIMARY KEY,
  "environment"           TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"               TEXT NOT NULL REFERENCES "users" ("id"),
  "from_account_id"       TEXT NOT NULL REFERENCES "accounts" ("id"),
  "to_account_id"         TEXT NOT NULL REFERENCES "accounts" ("id"),
  "asset_code"            TEXT NOT NULL REFERENCES "assets" ("code"),
  "amount"                NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "fee_amount"            NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("fee_amount" >= 0),
  "status"                TEXT NOT NULL CHECK ("status" IN ('pending', 'pending_review', 'completed', 'failed', 'reversed')),
  "reference"             TEXT,
  "description"           TEXT,
  "metadata"              JSONB NOT NULL DEFAULT '{}',
  "workflow_id"           TEXT,
  -- The journal entry that moves the money (pending while the workflow runs, then posted or voided).
  -- Deferred: an immediate transfer is written before its entry, so the ledger locks are held only
  -- for the posting itself and the commit.
  "entry_id"              TEXT REFERENCES "journal_entries" ("id") DEFERRABLE INITIALLY DEFERRED,
  "reversal_entry_id"     TEXT REFERENCES "journal_entries" ("id"),
  "failure_code"          TEXT,
  "failure_reason"        TEXT,
  "compensation_executed" BOOLEAN NOT NULL DEFAULT false,
  "estimated_completion"  TIMESTAMPTZ(3),
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"          TIMESTAMPTZ(3),
  "failed_at"             TIMESTAMPTZ(3),
  CONSTRAINT "transfers_distinct_accounts" CHECK ("from_account_id" <> "to_account_id")
);
CREATE INDEX "transfers_from_account_id_created_at_idx" ON "transfers" ("from_account_id", "created_at" DESC);
CREATE INDEX "transfers_to_account_id_created_at_idx" ON "transfers" ("to_account_id", "created_at" DESC);
CREATE INDEX "transfers_user_id_environment_created_at_idx" ON "transfers" ("user_id", "environment", "created_at" DESC);
CREATE INDEX "transfers_status_idx" ON "transfers" ("status");
