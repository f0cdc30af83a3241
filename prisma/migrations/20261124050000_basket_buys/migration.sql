-- Buying basket units with one asset (POST /gcu/buy, issue 15): a record per buy, driven by the
-- basket buy workflow (reserve → acquire components → compose and settle; void on failure).
-- The quote is fixed on the record: units, the worst-case price (quoted price plus slippage)
-- whose cost and fee are reserved, and the execution price the settlement used.

CREATE TABLE "basket_buys" (
  "id"                   TEXT PRIMARY KEY,
  "environment"          TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"              TEXT NOT NULL,
  "account_id"           TEXT NOT NULL REFERENCES "accounts" ("id"),
  "basket_code"          TEXT NOT NULL REFERENCES "baskets" ("code"),
  "spend_asset"          TEXT NOT NULL REFERENCES "assets" ("code"),
  "units"                NUMERIC(38, 18) NOT NULL CHECK ("units" > 0),
  -- Spend asset per basket unit at the quote, and the most the buy may execute at.
  "quoted_price"         NUMERIC(38, 18) NOT NULL CHECK ("quoted_price" > 0),
  "max_price"            NUMERIC(38, 18) NOT NULL CHECK ("max_price" >= "quoted_price"),
  "slippage_bps"         INTEGER NOT NULL CHECK ("slippage_bps" BETWEEN 0 AND 1000),
  "fee_bps"              INTEGER NOT NULL CHECK ("fee_bps" >= 0),
  -- Quoted cost and fee, and what was reserved (cost and fee at max_price).
  "quoted_cost"          NUMERIC(38, 18) NOT NULL,
  "quoted_fee"           NUMERIC(38, 18) NOT NULL,
  "reserved_amount"      NUMERIC(38, 18) NOT NULL CHECK ("reserved_amount" > 0),
  -- At execution.
  "execution_price"      NUMERIC(38, 18),
  "cost"                 NUMERIC(38, 18),
  "fee"                  NUMERIC(38, 18),
  "value_usd"            NUMERIC(38, 18) NOT NULL,
  "status"               TEXT NOT NULL DEFAULT 'pending' CHECK ("status" IN ('pending', 'reserved', 'completed', 'failed')),
  "reservation_entry_id" TEXT,
  "settlement_entry_id"  TEXT,
  "failure_code"         TEXT,
  "failure_reason"       TEXT,
  "compensation"         TEXT CHECK ("compensation" IN ('voided', 'none')),
  "workflow_id"          TEXT NOT NULL,
  "idempotency_key"      TEXT NOT NULL,
  "quote_expires_at"     TIMESTAMPTZ(3) NOT NULL,
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"         TIMESTAMPTZ(3),
  "failed_at"            TIMESTAMPTZ(3),
  UNIQUE ("environment", "idempotency_key"),
  CONSTRAINT "basket_buys_completed_shape" CHECK ("status" <> 'completed' OR ("settlement_entry_id" IS NOT NULL AND "cost" IS NOT NULL AND "execution_price" IS NOT NULL)),
  CONSTRAINT "basket_buys_failed_shape" CHECK ("status" <> 'failed' OR ("failure_code" IS NOT NULL AND "compensation" IS NOT NULL))
);
CREATE INDEX "basket_buys_user_id_environment_created_at_idx" ON "basket_buys" ("user_id", "environment", "created_at" DESC);
