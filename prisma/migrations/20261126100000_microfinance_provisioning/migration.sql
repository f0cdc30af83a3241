-- IFRS 9 provisioning for microfinance loans (docs/microfinance-provisioning.md).
-- The allowance itself is money on the ledger (an internal loan-loss allowance account per
-- environment and currency, fed from a provision expense account); these tables hold the policy,
-- each loan's current expected credit loss and one summary row per daily run.

-- PD and LGD per stage, versioned: a run uses the version in force on its run date (the highest
-- effective_from on or before it). Stage 1 PDs are 12-month PDs, stages 2 and 3 lifetime PDs, so
-- "12-month vs lifetime ECL" is carried by the PD figures (ECL = PD x LGD x EAD for every stage).
CREATE TABLE "mf_provision_policies" (
  "version"        INTEGER NOT NULL CHECK ("version" >= 1),
  "effective_from" DATE NOT NULL,
  "stage"          SMALLINT NOT NULL CHECK ("stage" IN (1, 2, 3)),
  "pd"             NUMERIC(10, 8) NOT NULL CHECK ("pd" >= 0 AND "pd" <= 1),
  "lgd"            NUMERIC(10, 8) NOT NULL CHECK ("lgd" >= 0 AND "lgd" <= 1),
  "description"    TEXT,
  "created_by"     TEXT REFERENCES "users" ("id"),
  "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("version", "stage")
);
CREATE INDEX "mf_provision_policies_effective_idx" ON "mf_provision_policies" ("effective_from", "version");

-- The default version. ILLUSTRATIVE figures, not calibrated on any portfolio: an institution sets
-- its own (POST /api/v1/microfinance/provision-policies) from its loss history and regulator.
INSERT INTO "mf_provision_policies" ("version", "effective_from", "stage", "pd", "lgd", "description") VALUES
  (1, DATE '2000-01-01', 1, 0.02, 0.45, 'Illustrative default (not calibrated): stage 1, 12-month PD'),
  (1, DATE '2000-01-01', 2, 0.25, 0.45, 'Illustrative default (not calibrated): stage 2, lifetime PD (> 30 days past due)'),
  (1, DATE '2000-01-01', 3, 1.00, 0.65, 'Illustrative default (not calibrated): stage 3, credit-impaired (> 90 days past due)');

-- The current provision of each open loan (replaced by every run; a loan that left 'active' is removed).
CREATE TABLE "mf_loan_provisions" (
  "loan_id"        TEXT PRIMARY KEY REFERENCES "mf_loans" ("id"),
  "stage"          SMALLINT NOT NULL CHECK ("stage" IN (1, 2, 3)),
  "days_past_due"  INTEGER NOT NULL CHECK ("days_past_due" >= 0),
  "ead"            NUMERIC(38, 18) NOT NULL CHECK ("ead" >= 0),
  "pd"             NUMERIC(10, 8) NOT NULL,
  "lgd"            NUMERIC(10, 8) NOT NULL,
  "ecl"            NUMERIC(38, 18) NOT NULL CHECK ("ecl" >= 0),
  "policy_version" INTEGER NOT NULL,
  "computed_on"    DATE NOT NULL
);

-- One run per environment, currency and run date: a re-run of the same day returns this row and
-- posts nothing. entry_id is the allowance entry (NULL when the allowance did not change).
CREATE TABLE "mf_provision_runs" (
  "id"               TEXT PRIMARY KEY,
  "environment"      TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "currency"         TEXT NOT NULL REFERENCES "assets" ("code"),
  "run_date"         DATE NOT NULL,
  "policy_version"   INTEGER NOT NULL,
  "loans"            INTEGER NOT NULL,
  "total_ecl"        NUMERIC(38, 18) NOT NULL,
  "allowance_before" NUMERIC(38, 18) NOT NULL,
  "allowance_after"  NUMERIC(38, 18) NOT NULL,
  "change"           NUMERIC(38, 18) NOT NULL,
  "entry_id"         TEXT,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  UNIQUE ("environment", "currency", "run_date")
);
CREATE INDEX "mf_provision_runs_recent_idx" ON "mf_provision_runs" ("environment", "run_date" DESC, "currency");
