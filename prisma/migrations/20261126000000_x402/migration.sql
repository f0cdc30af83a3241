-- HTTP-native payments (docs/payments-402.md): payer wallets bound to accounts, spending limits per
-- payer wallet and per agent key, monetized endpoints, and every EIP-3009 payment presented, keyed
-- by its authorization nonce so one authorization settles at most once.

-- An API key tagged as an agent: software spending on its owner's behalf, under an agent budget.
ALTER TABLE "api_keys" ADD COLUMN "agent" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "x402_wallets" (
  "id"          TEXT PRIMARY KEY,
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  -- Lower-case 0x address; its owner proved control by signing the registration message.
  "address"     TEXT NOT NULL CHECK ("address" ~ '^0x[0-9a-f]{40}$'),
  "user_id"     TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "account_id"  TEXT NOT NULL REFERENCES "accounts" ("id"),
  "label"       TEXT,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "x402_wallets_environment_address_key" ON "x402_wallets" ("environment", "address");
CREATE INDEX "x402_wallets_user_id_idx" ON "x402_wallets" ("user_id", "environment");

CREATE TABLE "x402_spending_limits" (
  "id"              TEXT PRIMARY KEY,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"         TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  -- payer: a wallet address (lower case); agent: an API key id.
  "subject_type"    TEXT NOT NULL CHECK ("subject_type" IN ('payer', 'agent')),
  "subject"         TEXT NOT NULL,
  -- USDC; null = the platform default for the subject type.
  "per_request_max" NUMERIC(38, 6) CHECK ("per_request_max" >= 0),
  "daily_max"       NUMERIC(38, 6) CHECK ("daily_max" >= 0),
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "x402_spending_limits_subject_key" ON "x402_spending_limits" ("environment", "subject_type", "subject");

CREATE TABLE "x402_endpoints" (
  "id"              TEXT PRIMARY KEY,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "path"            TEXT NOT NULL,
  "method"          TEXT NOT NULL DEFAULT 'GET' CHECK ("method" = 'GET'),
  "price_usd_cents" INTEGER NOT NULL CHECK ("price_usd_cents" > 0),
  "network"         TEXT NOT NULL,
  "asset"           TEXT NOT NULL,
  "pay_to"          TEXT NOT NULL,
  "description"     TEXT NOT NULL,
  "created_by"      TEXT NOT NULL REFERENCES "users" ("id"),
  "active"          BOOLEAN NOT NULL DEFAULT true,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "x402_endpoints_active_path_key" ON "x402_endpoints" ("environment", "path") WHERE "active";

CREATE TABLE "x402_payments" (
  "id"               TEXT PRIMARY KEY,
  "environment"      TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "network"          TEXT NOT NULL,
  -- Token contract, lower case.
  "asset"            TEXT NOT NULL,
  "payer"            TEXT NOT NULL,
  "pay_to"           TEXT NOT NULL,
  -- Atomic units (USDC: 6 decimals).
  "amount"           NUMERIC(78, 0) NOT NULL CHECK ("amount" > 0),
  "nonce"            TEXT NOT NULL,
  "valid_before"     TIMESTAMPTZ(3) NOT NULL,
  "purpose"          TEXT NOT NULL CHECK ("purpose" IN ('sms', 'endpoint', 'mcp', 'facilitator')),
  "resource"         TEXT NOT NULL,
  "endpoint_id"      TEXT REFERENCES "x402_endpoints" ("id"),
  "agent_key_id"     TEXT,
  "payer_user_id"    TEXT REFERENCES "users" ("id"),
  "payer_account_id" TEXT REFERENCES "accounts" ("id"),
  "status"           TEXT NOT NULL CHECK ("status" IN ('settling', 'settled', 'failed', 'refunded')),
  "entry_id"         TEXT,
  "refund_entry_id"  TEXT,
  "transaction_hash" TEXT,
  "failure_code"     TEXT,
  "failure_reason"   TEXT,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "settled_at"       TIMESTAMPTZ(3),
  "refunded_at"      TIMESTAMPTZ(3)
);
-- EIP-3009 nonces are per token contract and signer: the same authorization is one row per
-- environment, whatever path (header form, scheme, MCP) presents it, so it settles once. (Sandbox
-- money is not on chain: an authorization shown to both environments moves real money only once.)
CREATE UNIQUE INDEX "x402_payments_authorization_key" ON "x402_payments" ("environment", "network", "asset", "payer", "nonce");
CREATE INDEX "x402_payments_payer_idx" ON "x402_payments" ("environment", "payer", "created_at");
CREATE INDEX "x402_payments_agent_idx" ON "x402_payments" ("environment", "agent_key_id", "created_at") WHERE "agent_key_id" IS NOT NULL;
CREATE INDEX "x402_payments_payer_user_idx" ON "x402_payments" ("payer_user_id", "environment", "created_at" DESC, "id" DESC);
