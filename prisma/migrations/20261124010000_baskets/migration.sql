-- Baskets (issue 15): multi-asset currency units such as GCU, valued as the IMF values the SDR.
--
-- A basket is an asset (type 'basket') plus a set of components with FIXED amounts per basket
-- unit; weights are derived from the amounts and the rates of the moment, never stored as facts.
-- Compositions are kept per environment, because governance in one environment (sandbox polls)
-- must never change the other's basket; both start from the same definition.
--
-- The reserve rule (docs/gcu.md): for every component, the basket's reserve ledger account holds
-- exactly ceil(outstanding units x amount, component precision). basket_states.outstanding is the
-- row every compose/decompose locks, so that figure is computed under one lock per basket and
-- environment and each operation pays or receives exactly its change.

CREATE TABLE "baskets" (
  "code"                 TEXT PRIMARY KEY REFERENCES "assets" ("code"),
  "name"                 TEXT NOT NULL,
  "description"          TEXT,
  "is_primary"           BOOLEAN NOT NULL DEFAULT false,
  -- How often governance may change the composition: a monthly poll for the primary basket.
  "rebalance_frequency"  TEXT NOT NULL DEFAULT 'monthly' CHECK ("rebalance_frequency" IN ('monthly', 'quarterly', 'never')),
  "created_by"           TEXT,
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
-- At most one primary basket (GCU).
CREATE UNIQUE INDEX "baskets_primary_key" ON "baskets" ("is_primary") WHERE "is_primary";

CREATE TABLE "basket_states" (
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "basket_code"        TEXT NOT NULL REFERENCES "baskets" ("code"),
  -- Composition version in force (basket_revisions); a rebalance increments it.
  "version"            INTEGER NOT NULL DEFAULT 1 CHECK ("version" >= 1),
  -- Basket units in customers' hands; equals the issuance ledger account's balance.
  "outstanding"        NUMERIC(48, 18) NOT NULL DEFAULT 0 CHECK ("outstanding" >= 0),
  "last_rebalanced_at" TIMESTAMPTZ(3),
  "updated_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "basket_code")
);

CREATE TABLE "basket_components" (
  "environment"   TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "basket_code"   TEXT NOT NULL REFERENCES "baskets" ("code"),
  "asset_code"    TEXT NOT NULL REFERENCES "assets" ("code"),
  -- Units of the component in one basket unit (IMF "currency amount under Rule O-1").
  "amount"        NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  -- The weight the amount was set from at the last (re)definition; the live weight drifts.
  "target_weight" NUMERIC(12, 10) NOT NULL CHECK ("target_weight" > 0 AND "target_weight" <= 1),
  PRIMARY KEY ("environment", "basket_code", "asset_code")
);

-- Every composition a basket has had, with the rates it was set at (audit; rebalances add rows).
CREATE TABLE "basket_revisions" (
  "id"           TEXT PRIMARY KEY,
  "environment"  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "basket_code"  TEXT NOT NULL REFERENCES "baskets" ("code"),
  "version"      INTEGER NOT NULL,
  -- [{asset_code, amount, target_weight}]
  "components"   JSONB NOT NULL,
  -- {asset_code: USD price} the amounts were computed at, and the basket value then.
  "rates"        JSONB NOT NULL,
  "value_usd"    NUMERIC(38, 18) NOT NULL,
  "proposal_id"  TEXT,
  "entry_id"     TEXT,
  "effective_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  UNIQUE ("environment", "basket_code", "version")
);

-- Compose and decompose records (one ledger entry each).
CREATE TABLE "basket_operations" (
  "id"              TEXT PRIMARY KEY,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"         TEXT NOT NULL,
  "account_id"      TEXT NOT NULL REFERENCES "accounts" ("id"),
  "basket_code"     TEXT NOT NULL REFERENCES "baskets" ("code"),
  "kind"            TEXT NOT NULL CHECK ("kind" IN ('compose', 'decompose')),
  "units"           NUMERIC(38, 18) NOT NULL CHECK ("units" > 0),
  "version"         INTEGER NOT NULL,
  -- [{asset_code, amount}]: what left (compose) or reached (decompose) the account.
  "components"      JSONB NOT NULL,
  "entry_id"        TEXT NOT NULL,
  "idempotency_key" TEXT NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  UNIQUE ("environment", "idempotency_key")
);
CREATE INDEX "basket_operations_account_id_created_at_idx" ON "basket_operations" ("account_id", "created_at" DESC);

-- GCU: six components, amounts set from target weights at the seeded rates of 2026-11-21
-- (USD 1, EUR 1.08, GBP 1.27, CHF 1.13, JPY 0.0067, XAU 2650) so that one GCU was worth
-- USD 1.10, the price GCU already had: amount = weight x 1.10 / rate, rounded to five
-- significant digits as the IMF rounds the SDR's amounts. docs/gcu.md shows the arithmetic.
INSERT INTO "baskets" ("code", "name", "description", "is_primary", "rebalance_frequency") VALUES
  ('GCU', 'Global Currency Unit', 'Basket of USD, EUR, GBP, CHF, JPY and gold with fixed amounts per unit; composition changed by monthly holder vote', true, 'monthly');

INSERT INTO "basket_components" ("environment", "basket_code", "asset_code", "amount", "target_weight")
SELECT e.env, 'GCU', c.asset, c.amount, c.weight
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN (VALUES
  ('USD', 0.38500,     0.35),
  ('EUR', 0.25463,     0.25),
  ('GBP', 0.086614,    0.10),
  ('CHF', 0.097345,    0.10),
  ('JPY', 16.418,      0.10),
  ('XAU', 0.000041509, 0.10)
) c(asset, amount, weight);

INSERT INTO "basket_states" ("environment", "basket_code") VALUES ('sandbox', 'GCU'), ('production', 'GCU');

INSERT INTO "basket_revisions" ("id", "environment", "basket_code", "version", "components", "rates", "value_usd", "effective_at")
SELECT 'brev_' || replace(gen_random_uuid()::text, '-', ''), env, 'GCU', 1,
  '[{"asset_code":"USD","amount":"0.385","target_weight":"0.35"},{"asset_code":"EUR","amount":"0.25463","target_weight":"0.25"},{"asset_code":"GBP","amount":"0.086614","target_weight":"0.1"},{"asset_code":"CHF","amount":"0.097345","target_weight":"0.1"},{"asset_code":"JPY","amount":"16.418","target_weight":"0.1"},{"asset_code":"XAU","amount":"0.000041509","target_weight":"0.1"}]'::jsonb,
  '{"USD":"1","EUR":"1.08","GBP":"1.27","CHF":"1.13","JPY":"0.0067","XAU":"2650"}'::jsonb,
  1.1, '2026-11-21T00:00:00Z'
FROM (VALUES ('sandbox'), ('production')) e(env);

-- Valuations recorded by the hourly valuation schedule (never computed at request time for
-- history): the value, the composition version and each component's rate and USD equivalent.
CREATE TABLE "basket_valuations" (
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "basket_code" TEXT NOT NULL REFERENCES "baskets" ("code"),
  "valued_at"   TIMESTAMPTZ(3) NOT NULL,
  "value_usd"   NUMERIC(38, 18) NOT NULL CHECK ("value_usd" > 0),
  "version"     INTEGER NOT NULL,
  -- [{asset_code, amount, rate, usd_equivalent}]
  "components"  JSONB NOT NULL,
  "recorded_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "basket_code", "valued_at")
);
