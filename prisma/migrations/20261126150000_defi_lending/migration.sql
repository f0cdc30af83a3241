-- DeFi positions, part 2: lending (docs/defi.md "Lending").
--
-- defi_lending_markets: one money market per chain, protocol and asset (Aave's reserves). The
-- totals include the protocol's other users (the seed is a market already in use); the platform's
-- customers add to them. Balances are kept scaled (Aave's scaled balances): a supplier's balance is
-- scaled_supply x supply_index, a borrower's debt scaled_debt x borrow_index; the indexes grow at
-- each accrual by the kinked rate model of domain/defi/lending-math.ts over whole blocks of the
-- chain's block time since accrued_at. `cash` is the market's idle liquidity (what can be
-- withdrawn or borrowed), in the asset's ledger units.
CREATE TABLE "defi_lending_markets" (
  "environment"           TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "id"                    TEXT NOT NULL,
  "chain"                 TEXT NOT NULL,
  "protocol"              TEXT NOT NULL,
  "asset"                 TEXT NOT NULL REFERENCES "assets" ("code"),
  -- Annual rates and ratios as fractions (0.05 = 5 %).
  "base_rate"             NUMERIC(12, 8) NOT NULL CHECK ("base_rate" >= 0),
  "slope1"                NUMERIC(12, 8) NOT NULL CHECK ("slope1" >= 0),
  "slope2"                NUMERIC(12, 8) NOT NULL CHECK ("slope2" >= 0),
  "optimal_utilization"   NUMERIC(12, 8) NOT NULL CHECK ("optimal_utilization" > 0 AND "optimal_utilization" < 1),
  "reserve_factor"        NUMERIC(12, 8) NOT NULL CHECK ("reserve_factor" >= 0 AND "reserve_factor" < 1),
  -- Borrowing power per unit of collateral value; the value share counted in the health factor;
  -- the liquidator's bonus (the borrower's penalty) on seized collateral.
  "ltv"                   NUMERIC(12, 8) NOT NULL CHECK ("ltv" >= 0 AND "ltv" < 1),
  "liquidation_threshold" NUMERIC(12, 8) NOT NULL CHECK ("liquidation_threshold" >= "ltv" AND "liquidation_threshold" < 1),
  "liquidation_bonus"     NUMERIC(12, 8) NOT NULL CHECK ("liquidation_bonus" >= 0 AND "liquidation_bonus" < 0.5),
  "cash"                  NUMERIC(78, 18) NOT NULL CHECK ("cash" >= 0),
  "scaled_supply"         NUMERIC(78, 27) NOT NULL CHECK ("scaled_supply" >= 0),
  "scaled_borrows"        NUMERIC(78, 27) NOT NULL CHECK ("scaled_borrows" >= 0),
  "supply_index"          NUMERIC(60, 27) NOT NULL DEFAULT 1 CHECK ("supply_index" >= 1),
  "borrow_index"          NUMERIC(60, 27) NOT NULL DEFAULT 1 CHECK ("borrow_index" >= 1),
  "accrued_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "active"                BOOLEAN NOT NULL DEFAULT true,
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "id")
);
CREATE UNIQUE INDEX "defi_lending_markets_environment_chain_protocol_asset_key" ON "defi_lending_markets" ("environment", "chain", "protocol", "asset");

-- Parameters after Aave V3's Ethereum and Arbitrum markets (rounded); liquidity about what those
-- markets held in 2026, Arbitrum's a twentieth of Ethereum's. Supplied = cash + borrowed.
INSERT INTO "defi_lending_markets" ("environment", "id", "chain", "protocol", "asset", "base_rate", "slope1", "slope2", "optimal_utilization", "reserve_factor",
  "ltv", "liquidation_threshold", "liquidation_bonus", "cash", "scaled_supply", "scaled_borrows")
SELECT e.env, c.chain || '-aave-' || lower(m.asset), c.chain, 'aave', m.asset, m.base, m.s1, m.s2, m.opt, m.rf, m.ltv, m.lt, m.bonus,
  (m.supplied - m.borrowed) / c.scale, m.supplied / c.scale, m.borrowed / c.scale
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN (VALUES ('ethereum', 1), ('arbitrum', 20)) c(chain, scale)
CROSS JOIN (VALUES
  ('WETH', 0, 0.027, 0.80, 0.90, 0.15, 0.805, 0.83, 0.05, 2000000::numeric, 1600000::numeric),
  ('USDC', 0, 0.06,  0.60, 0.92, 0.10, 0.75,  0.78, 0.045, 3000000000, 2400000000),
  ('USDT', 0, 0.06,  0.60, 0.92, 0.10, 0.75,  0.78, 0.045, 2000000000, 1600000000),
  ('DAI',  0, 0.06,  0.75, 0.90, 0.10, 0.63,  0.77, 0.05, 300000000, 210000000),
  ('WBTC', 0, 0.04,  3.00, 0.45, 0.20, 0.73,  0.78, 0.05, 40000, 2000)
) m(asset, base, s1, s2, opt, rf, ltv, lt, bonus, supplied, borrowed);

-- A customer's lending position: one per account, chain and protocol (a protocol account, as an
-- Aave user is one address): every supplied asset is collateral for every borrowed one, so the
-- health factor is the position's.
--   open -> closed (every balance back to zero)
CREATE TABLE "defi_lending_positions" (
  "id"            TEXT PRIMARY KEY,
  "environment"   TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"       TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"    TEXT NOT NULL REFERENCES "accounts" ("id"),
  "chain"         TEXT NOT NULL,
  "protocol"      TEXT NOT NULL,
  "status"        TEXT NOT NULL CHECK ("status" IN ('open', 'closed')),
  -- Set when position.liquidation_warning was sent; cleared when the health factor recovers, so a
  -- position is warned once per descent.
  "warned_at"     TIMESTAMPTZ(3),
  "liquidations"  INTEGER NOT NULL DEFAULT 0,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "closed_at"     TIMESTAMPTZ(3),
  CHECK (("status" = 'closed') = ("closed_at" IS NOT NULL))
);
CREATE UNIQUE INDEX "defi_lending_positions_open_key" ON "defi_lending_positions" ("environment", "account_id", "chain", "protocol") WHERE "status" = 'open';
CREATE INDEX "defi_lending_positions_user_id_environment_created_at_idx" ON "defi_lending_positions" ("user_id", "environment", "created_at" DESC);

CREATE TABLE "defi_lending_balances" (
  "position_id"   TEXT NOT NULL REFERENCES "defi_lending_positions" ("id"),
  "environment"   TEXT NOT NULL,
  "market_id"     TEXT NOT NULL,
  "scaled_supply" NUMERIC(78, 27) NOT NULL DEFAULT 0 CHECK ("scaled_supply" >= 0),
  "scaled_debt"   NUMERIC(78, 27) NOT NULL DEFAULT 0 CHECK ("scaled_debt" >= 0),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("position_id", "market_id"),
  FOREIGN KEY ("environment", "market_id") REFERENCES "defi_lending_markets" ("environment", "id")
);

-- Every movement of a position, each with its balanced ledger entry: the history, and the answer a
-- retried request (same Idempotency-Key) gets.
CREATE TABLE "defi_lending_operations" (
  "id"               TEXT PRIMARY KEY,
  "environment"      TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "position_id"      TEXT NOT NULL REFERENCES "defi_lending_positions" ("id"),
  "kind"             TEXT NOT NULL CHECK ("kind" IN ('supply', 'withdraw', 'borrow', 'repay', 'liquidation')),
  "market_id"        TEXT NOT NULL,
  "asset"            TEXT NOT NULL,
  "amount"           TEXT NOT NULL,
  -- Liquidations: the collateral seized (market, asset, amount, of which the penalty) for `amount` of debt repaid.
  "seized_market_id" TEXT,
  "seized_asset"     TEXT,
  "seized_amount"    TEXT,
  "penalty_amount"   TEXT,
  "health_factor"    TEXT,
  "entry_id"         TEXT NOT NULL,
  "idempotency_key"  TEXT NOT NULL,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CHECK (("kind" = 'liquidation') = ("seized_amount" IS NOT NULL))
);
CREATE UNIQUE INDEX "defi_lending_operations_environment_idempotency_key_key" ON "defi_lending_operations" ("environment", "idempotency_key");
CREATE INDEX "defi_lending_operations_position_id_created_at_idx" ON "defi_lending_operations" ("position_id", "created_at" DESC);
