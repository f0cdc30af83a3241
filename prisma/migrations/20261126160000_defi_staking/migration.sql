-- DeFi positions, part 3: staking (docs/defi.md "Staking"; code domain/defi/staking*.ts).
--
-- A customer stakes tokens from a chain book into a staking product; the tokens sit on the internal
-- account staking_pool:<chain>:<protocol> while staked. Rewards accrue per COMPLETED epoch counted
-- from the stake: reward per epoch = principal x annual_rate x epoch_seconds / 31,536,000, rounded
-- down to the asset's ledger precision. A harvest pays every completed unpaid epoch in one entry
-- from staking_rewards:<chain>:<protocol> (the network's inbound rewards) to the chain book (payout)
-- or to the staking pool (compound: the principal grows, so later epochs earn on more). Unstaking
-- starts an unbonding period (a Temporal timer, workflows/defi-staking.ts); at its end the
-- principal and any unpaid rewards come back to the chain book in one entry.
--
-- defi_staking_products: what can be staked, one copy per environment (as defi_pools).
CREATE TABLE "defi_staking_products" (
  "environment"       TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "id"                TEXT NOT NULL,
  "chain"             TEXT NOT NULL,
  "protocol"          TEXT NOT NULL,
  "asset_code"        TEXT NOT NULL REFERENCES "assets" ("code"),
  "name"              TEXT NOT NULL,
  -- A fraction: 0.031 = 3.1 % a year, simple (not compounded) within a harvest.
  "annual_rate"       NUMERIC(10, 8) NOT NULL CHECK ("annual_rate" >= 0 AND "annual_rate" < 1),
  "epoch_seconds"     INTEGER NOT NULL CHECK ("epoch_seconds" > 0),
  -- At least one epoch: the epoch in progress at an unstake request still completes within it.
  "unbonding_seconds" INTEGER NOT NULL,
  "minimum_stake"     NUMERIC(38, 18) NOT NULL CHECK ("minimum_stake" > 0),
  "active"            BOOLEAN NOT NULL DEFAULT true,
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("environment", "id"),
  CHECK ("unbonding_seconds" >= "epoch_seconds")
);

INSERT INTO "defi_staking_products" ("environment", "id", "chain", "protocol", "asset_code", "name", "annual_rate", "epoch_seconds", "unbonding_seconds", "minimum_stake")
SELECT e.env, p.id, p.chain, p.protocol, p.asset, p.name, p.rate, p.epoch, p.unbonding, p.minimum
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN (VALUES
  -- Native ETH on the beacon chain, pooled on the platform's validators (32 ETH each is the
  -- platform's concern, so customers stake from 0.01). Epoch = 32 slots x 12 s = 384 s. About
  -- 3.1 % a year gross (consensus rewards plus tips at ~34M ETH staked). Unbonding 6 days: the
  -- exit queue (hours when short), then MIN_VALIDATOR_WITHDRAWABILITY_DELAY of 256 epochs
  -- (~27.3 h), then the withdrawal sweep reaching the validator (16 per slot over ~1M validators
  -- is a full pass of ~8.7 days, ~4.3 on average).
  ('ethereum-beacon-eth', 'ethereum', 'beacon', 'ETH', 'Ethereum native staking (beacon chain)', 0.031, 384, 518400, 0.01),
  -- Liquid staking of WETH on Arbitrum through Lido (wstETH): rewards arrive with Lido's daily
  -- oracle report, so an epoch is a day; 2.79 % = the 3.1 % beacon rate less Lido's 10 % fee.
  -- Unbonding 8 days: Arbitrum's L2 -> L1 challenge period (45,818 L1 blocks, ~6.4 days) to bring
  -- the wstETH to Ethereum, then Lido's withdrawal queue (usually finalised within 1-2 days).
  ('arbitrum-lido-weth', 'arbitrum', 'lido', 'WETH', 'Lido liquid staking of WETH on Arbitrum (wstETH)', 0.0279, 86400, 691200, 0.001)
) p(id, chain, protocol, asset, name, rate, epoch, unbonding, minimum);

-- A customer's staking position (id st_...). `principal` is what earns now (the stake plus
-- compounded rewards); `harvested_epochs` is how many epochs since `staked_at` were paid (the next
-- unpaid epoch's index); `reward_epochs` is fixed at the unstake request: the epochs that earn at
-- all (those completed by then plus the one in progress, which completes during unbonding).
--   staked -> unbonding (unstake requested) -> withdrawn (principal + unpaid rewards back)
CREATE TABLE "defi_staking_positions" (
  "id"                  TEXT PRIMARY KEY,
  "environment"         TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"             TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"          TEXT NOT NULL REFERENCES "accounts" ("id"),
  "product_id"          TEXT NOT NULL,
  "chain"               TEXT NOT NULL,
  "protocol"            TEXT NOT NULL,
  "asset_code"          TEXT NOT NULL,
  "staked_amount"       NUMERIC(38, 18) NOT NULL CHECK ("staked_amount" > 0),
  "principal"           NUMERIC(38, 18) NOT NULL CHECK ("principal" >= "staked_amount"),
  "auto_compound"       BOOLEAN NOT NULL DEFAULT false,
  "rewards_harvested"   NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("rewards_harvested" >= 0),
  "harvested_epochs"    INTEGER NOT NULL DEFAULT 0 CHECK ("harvested_epochs" >= 0),
  "last_harvested_at"   TIMESTAMPTZ(3),
  "reward_epochs"       INTEGER,
  "status"              TEXT NOT NULL CHECK ("status" IN ('staked', 'unbonding', 'withdrawn')),
  "staked_at"           TIMESTAMPTZ(3) NOT NULL,
  "unbond_requested_at" TIMESTAMPTZ(3),
  "unbonding_ends_at"   TIMESTAMPTZ(3),
  "withdrawn_at"        TIMESTAMPTZ(3),
  -- Unpaid rewards paid with the principal at withdrawal.
  "final_rewards"       NUMERIC(38, 18) CHECK ("final_rewards" >= 0),
  "stake_entry_id"      TEXT NOT NULL,
  "withdraw_entry_id"   TEXT,
  "workflow_id"         TEXT,
  "idempotency_key"     TEXT NOT NULL,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  FOREIGN KEY ("environment", "product_id") REFERENCES "defi_staking_products" ("environment", "id"),
  -- The state machine: each state has exactly the fields its transitions set.
  CHECK (("status" = 'staked') = ("unbond_requested_at" IS NULL)),
  CHECK (("unbond_requested_at" IS NULL) = ("unbonding_ends_at" IS NULL) AND ("unbond_requested_at" IS NULL) = ("reward_epochs" IS NULL)),
  CHECK ("unbonding_ends_at" > "unbond_requested_at"),
  CHECK (("status" = 'withdrawn') = ("withdrawn_at" IS NOT NULL)),
  CHECK (("status" = 'withdrawn') = ("withdraw_entry_id" IS NOT NULL) AND ("status" = 'withdrawn') = ("final_rewards" IS NOT NULL)),
  CHECK ("withdrawn_at" >= "unbonding_ends_at"),
  CHECK ("harvested_epochs" <= "reward_epochs"),
  CHECK ("unbond_requested_at" >= "staked_at")
);
CREATE UNIQUE INDEX "defi_staking_positions_environment_idempotency_key_key" ON "defi_staking_positions" ("environment", "idempotency_key");
CREATE INDEX "defi_staking_positions_user_id_environment_created_at_idx" ON "defi_staking_positions" ("user_id", "environment", "created_at" DESC);
-- The daily harvest walks staked positions in id order.
CREATE INDEX "defi_staking_positions_status_id_idx" ON "defi_staking_positions" ("status", "id");

-- One row per harvest: epochs [from_epoch, to_epoch) of a position paid in one entry. The primary
-- key makes each epoch payable once, whoever retries (a workflow's activity, the API); the
-- request's key (a workflow step's, or the client's Idempotency-Key) lets a retry answer the first.
CREATE TABLE "defi_staking_harvests" (
  "position_id"     TEXT NOT NULL REFERENCES "defi_staking_positions" ("id"),
  "from_epoch"      INTEGER NOT NULL CHECK ("from_epoch" >= 0),
  "to_epoch"        INTEGER NOT NULL,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "mode"            TEXT NOT NULL CHECK ("mode" IN ('compounded', 'paid_out')),
  "amount"          NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  -- The principal after the harvest (grown by `amount` when compounded).
  "principal"       NUMERIC(38, 18) NOT NULL CHECK ("principal" > 0),
  "entry_id"        TEXT NOT NULL,
  "idempotency_key" TEXT NOT NULL,
  "harvested_at"    TIMESTAMPTZ(3) NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("position_id", "from_epoch"),
  CHECK ("to_epoch" > "from_epoch")
);
CREATE UNIQUE INDEX "defi_staking_harvests_environment_idempotency_key_key" ON "defi_staking_harvests" ("environment", "idempotency_key");
