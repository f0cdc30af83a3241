-- DeFi positions, part 1: liquidity provision on the DEX pools of 20261121060000_defi
-- (docs/defi.md "Liquidity positions").
--
-- defi_pool_shares: each pool's LP token supply. A seeded pool's existing liquidity belongs to
-- the LPs outside the platform; the first time the platform touches a pool its supply is set as
-- the pool's own first deposit would have minted it at the reserves of that moment (constant
-- product sqrt(x*y), StableSwap D, weighted n * prod B^w), the contracts' minimum locked. From then on
-- every deposit mints and every withdrawal burns by the pool's own math, under the pool's row lock.
CREATE TABLE "defi_pool_shares" (
  "environment"  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "pool_id"      TEXT NOT NULL,
  -- LP token units (18 decimals) in existence, locked minimum included.
  "total_shares" NUMERIC(78, 0) NOT NULL CHECK ("total_shares" > 0),
  -- Minted to nobody at the first deposit (Uniswap V2 MINIMUM_LIQUIDITY, Balancer _MINIMUM_BPT).
  "locked_shares" NUMERIC(78, 0) NOT NULL DEFAULT 0,
  "updated_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "pool_id"),
  FOREIGN KEY ("environment", "pool_id") REFERENCES "defi_pools" ("environment", "id")
);

-- A customer's liquidity position: the LP shares one deposit minted (one position per deposit, as
-- Uniswap V3 positions are). `deposited` is what went in and `withdrawn` what came out so far
-- (decimal strings at each asset's ledger precision, in the pool's coin order); deposited x shares /
-- shares_minted is the "hold" basis of impermanent loss.
--   open -> closed (every share burnt)
CREATE TABLE "defi_liquidity_positions" (
  "id"               TEXT PRIMARY KEY,
  "environment"      TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"          TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"       TEXT NOT NULL REFERENCES "accounts" ("id"),
  "pool_id"          TEXT NOT NULL,
  "chain"            TEXT NOT NULL,
  "dex"              TEXT NOT NULL,
  "tokens"           TEXT[] NOT NULL,
  "shares"           NUMERIC(78, 0) NOT NULL CHECK ("shares" >= 0),
  "shares_minted"    NUMERIC(78, 0) NOT NULL CHECK ("shares_minted" > 0),
  "deposited"        TEXT[] NOT NULL,
  "withdrawn"        TEXT[] NOT NULL,
  "status"           TEXT NOT NULL CHECK ("status" IN ('open', 'closed')),
  "open_entry_id"    TEXT NOT NULL,
  "close_entry_id"   TEXT,
  "idempotency_key"  TEXT NOT NULL,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "closed_at"        TIMESTAMPTZ(3),
  FOREIGN KEY ("environment", "pool_id") REFERENCES "defi_pools" ("environment", "id"),
  CHECK (("status" = 'closed') = ("shares" = 0)),
  CHECK (cardinality("tokens") = cardinality("deposited") AND cardinality("tokens") = cardinality("withdrawn"))
);
CREATE UNIQUE INDEX "defi_liquidity_positions_environment_idempotency_key_key" ON "defi_liquidity_positions" ("environment", "idempotency_key");
CREATE INDEX "defi_liquidity_positions_user_id_environment_created_at_idx" ON "defi_liquidity_positions" ("user_id", "environment", "created_at" DESC);
CREATE INDEX "defi_liquidity_positions_environment_pool_id_idx" ON "defi_liquidity_positions" ("environment", "pool_id");
