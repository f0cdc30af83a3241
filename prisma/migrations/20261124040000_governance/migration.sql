-- Governance of baskets (issue 15): proposals to change a basket's composition, holders' votes
-- weighted by their basket balance at the proposal's snapshot, and the execution of a succeeded
-- proposal as one rebalance (domain/governance, docs/gcu.md).
--
-- Why these constraints:
-- * one monthly poll per environment, basket and month: the monthly schedule may run twice (a
--   retry, a catch-up, two workers) and must still open exactly one poll
--   (governance_proposals_monthly_key);
-- * the snapshot is the instant voting opens (snapshot_at = voting_starts_at), so nobody can buy
--   power after seeing the proposal go live;
-- * a status carries the facts it implies (closed ones a closed_at, executed ones the revision they
--   made), so no half-recorded transition can exist;
-- * one vote per holder per proposal (the primary key); its power is fixed when first cast.

CREATE TABLE "governance_proposals" (
  "id"                 TEXT PRIMARY KEY,
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "basket_code"        TEXT NOT NULL REFERENCES "baskets" ("code"),
  "source"             TEXT NOT NULL CHECK ("source" IN ('monthly', 'operator')),
  -- 'YYYY-MM' of a monthly poll; operator proposals have none.
  "period"             TEXT CHECK ("period" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  "title"              TEXT NOT NULL,
  "description"        TEXT,
  -- The proposed composition: [{asset_code, weight}], target weights summing to 1. A component
  -- missing from the current basket is added; a current one missing here is removed.
  "components"         JSONB NOT NULL CHECK (jsonb_typeof("components") = 'array'),
  "status"             TEXT NOT NULL DEFAULT 'pending'
                       CHECK ("status" IN ('pending', 'active', 'defeated', 'succeeded', 'executed', 'canceled')),
  "voting_starts_at"   TIMESTAMPTZ(3) NOT NULL,
  "voting_ends_at"     TIMESTAMPTZ(3) NOT NULL,
  "snapshot_at"        TIMESTAMPTZ(3) NOT NULL,
  -- Basket units outstanding at the snapshot (issuance ledger account's history); set when voting
  -- opens and read again at close (a posting in flight at the snapshot commits a moment later).
  "eligible_power"     NUMERIC(48, 18) CHECK ("eligible_power" >= 0),
  -- Settings copied at creation, so changing them later does not move a running poll's goalposts.
  "quorum"             NUMERIC(12, 10) NOT NULL CHECK ("quorum" >= 0 AND "quorum" <= 1),
  "threshold"          NUMERIC(12, 10) NOT NULL CHECK ("threshold" >= 0 AND "threshold" <= 1),
  "votes_for"          NUMERIC(48, 18) NOT NULL DEFAULT 0 CHECK ("votes_for" >= 0),
  "votes_against"      NUMERIC(48, 18) NOT NULL DEFAULT 0 CHECK ("votes_against" >= 0),
  "votes_abstain"      NUMERIC(48, 18) NOT NULL DEFAULT 0 CHECK ("votes_abstain" >= 0),
  "voter_count"        INTEGER NOT NULL DEFAULT 0 CHECK ("voter_count" >= 0),
  -- governance-proposal-<id>; started_at stays null until a start was confirmed, so the monthly
  -- run can start the workflow of a proposal whose creator crashed before starting it.
  "workflow_id"        TEXT NOT NULL,
  "workflow_started_at" TIMESTAMPTZ(3),
  "executed_at"        TIMESTAMPTZ(3),
  "revision_version"   INTEGER,
  "execution_entry_id" TEXT,
  -- Who executed (the workflow step's key): its retry is a no-op, anything else is refused.
  "execution_key"      TEXT,
  "created_by"         TEXT,
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "opened_at"          TIMESTAMPTZ(3),
  "closed_at"          TIMESTAMPTZ(3),
  "canceled_at"        TIMESTAMPTZ(3),
  "canceled_by"        TEXT,
  "cancel_reason"      TEXT,
  "updated_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CHECK ("voting_ends_at" > "voting_starts_at"),
  CHECK ("snapshot_at" = "voting_starts_at"),
  CHECK (("source" = 'monthly') = ("period" IS NOT NULL)),
  CHECK ("status" IN ('pending', 'canceled') OR ("opened_at" IS NOT NULL AND "eligible_power" IS NOT NULL)),
  CHECK ("status" NOT IN ('defeated', 'succeeded', 'executed') OR "closed_at" IS NOT NULL),
  CHECK ("status" <> 'executed' OR ("executed_at" IS NOT NULL AND "revision_version" IS NOT NULL AND "execution_key" IS NOT NULL)),
  CHECK ("status" <> 'canceled' OR "canceled_at" IS NOT NULL)
);
CREATE UNIQUE INDEX "governance_proposals_monthly_key" ON "governance_proposals" ("environment", "basket_code", "period") WHERE "source" = 'monthly';
CREATE INDEX "governance_proposals_environment_status_voting_starts_at_idx" ON "governance_proposals" ("environment", "status", "voting_starts_at");

CREATE TABLE "governance_votes" (
  "proposal_id" TEXT NOT NULL REFERENCES "governance_proposals" ("id"),
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"     TEXT NOT NULL REFERENCES "users" ("id"),
  "vote"        TEXT NOT NULL CHECK ("vote" IN ('for', 'against', 'abstain')),
  -- The voter's basket balance at the snapshot; fixed at the first vote (a changed vote keeps it).
  "power"       NUMERIC(48, 18) NOT NULL CHECK ("power" > 0),
  "cast_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("proposal_id", "user_id")
);
CREATE INDEX "governance_votes_user_id_environment_cast_at_idx" ON "governance_votes" ("user_id", "environment", "cast_at" DESC);
