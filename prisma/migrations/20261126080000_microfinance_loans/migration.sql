-- Microfinance (docs/microfinance.md): joint-liability groups, loan products and group loans.
-- Money never lives here: disbursements, repayments, joint-liability cover and write-offs are
-- ledger entries; these rows hold the contract (schedule) and what was paid against it.

CREATE TABLE "mf_groups" (
  "id"              TEXT PRIMARY KEY,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  -- The partner tenant the members belong to (NULL: the platform's own customers).
  "tenant_id"       TEXT,
  "name"            TEXT NOT NULL,
  "liability_type"  TEXT NOT NULL CHECK ("liability_type" IN ('joint')),
  "status"          TEXT NOT NULL DEFAULT 'pending' CHECK ("status" IN ('pending', 'active', 'closed')),
  -- The group's guarantee fund: a customer-style account the members pay into, drawn on first
  -- when a member misses an instalment past tolerance.
  "guarantee_account_id" TEXT REFERENCES "accounts" ("id"),
  "created_by"      TEXT NOT NULL REFERENCES "users" ("id"),
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "activated_at"    TIMESTAMPTZ(3),
  "closed_at"       TIMESTAMPTZ(3)
);

CREATE TABLE "mf_group_members" (
  "group_id"    TEXT NOT NULL REFERENCES "mf_groups" ("id"),
  "user_id"     TEXT NOT NULL REFERENCES "users" ("id"),
  -- The member's account that loans are paid into and repaid from (and that covers others' arrears).
  "account_id"  TEXT NOT NULL REFERENCES "accounts" ("id"),
  "role"        TEXT NOT NULL DEFAULT 'member' CHECK ("role" IN ('leader', 'member')),
  "joined_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("group_id", "user_id")
);
CREATE INDEX "mf_group_members_user_idx" ON "mf_group_members" ("user_id");

-- Operator-defined loan products. Rates are nominal annual (0.12 = 12 %).
CREATE TABLE "mf_loan_products" (
  "id"                    TEXT PRIMARY KEY,
  "environment"           TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "name"                  TEXT NOT NULL,
  "currency"              TEXT NOT NULL REFERENCES "assets" ("code"),
  "principal_min"         NUMERIC(38, 18) NOT NULL CHECK ("principal_min" > 0),
  "principal_max"         NUMERIC(38, 18) NOT NULL,
  "annual_interest_rate"  NUMERIC(12, 8) NOT NULL CHECK ("annual_interest_rate" >= 0),
  "interest_method"       TEXT NOT NULL CHECK ("interest_method" IN ('flat', 'declining_balance')),
  "term_instalments"      INTEGER NOT NULL CHECK ("term_instalments" BETWEEN 1 AND 520),
  "repayment_frequency"   TEXT NOT NULL CHECK ("repayment_frequency" IN ('weekly', 'biweekly', 'monthly')),
  "grace_instalments"     INTEGER NOT NULL DEFAULT 0 CHECK ("grace_instalments" >= 0),
  "arrears_tolerance_days" INTEGER NOT NULL DEFAULT 0 CHECK ("arrears_tolerance_days" >= 0),
  "disbursement_fee"      NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("disbursement_fee" >= 0),
  "status"                TEXT NOT NULL DEFAULT 'active' CHECK ("status" IN ('active', 'retired')),
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CHECK ("principal_max" >= "principal_min")
);

-- One member's loan within a group. applied -> approved -> active (disbursed) -> closed | written_off;
-- applied/approved -> rejected. The product's terms are copied: a product change never moves a loan.
CREATE TABLE "mf_loans" (
  "id"                   TEXT PRIMARY KEY,
  "environment"          TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "group_id"             TEXT NOT NULL REFERENCES "mf_groups" ("id"),
  "user_id"              TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"           TEXT NOT NULL REFERENCES "accounts" ("id"),
  "product_id"           TEXT NOT NULL REFERENCES "mf_loan_products" ("id"),
  "currency"             TEXT NOT NULL REFERENCES "assets" ("code"),
  "principal"            NUMERIC(38, 18) NOT NULL CHECK ("principal" > 0),
  "annual_interest_rate" NUMERIC(12, 8) NOT NULL,
  "interest_method"      TEXT NOT NULL CHECK ("interest_method" IN ('flat', 'declining_balance')),
  "term_instalments"     INTEGER NOT NULL,
  "repayment_frequency"  TEXT NOT NULL CHECK ("repayment_frequency" IN ('weekly', 'biweekly', 'monthly')),
  "grace_instalments"    INTEGER NOT NULL DEFAULT 0,
  "arrears_tolerance_days" INTEGER NOT NULL DEFAULT 0,
  "status"               TEXT NOT NULL DEFAULT 'applied'
                         CHECK ("status" IN ('applied', 'approved', 'active', 'closed', 'written_off', 'rejected')),
  "workflow_id"          TEXT NOT NULL UNIQUE,
  "disbursement_entry_id" TEXT,
  "write_off_entry_id"   TEXT,
  "disbursed_on"         DATE,
  "approved_by"          TEXT REFERENCES "users" ("id"),
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "approved_at"          TIMESTAMPTZ(3),
  "disbursed_at"         TIMESTAMPTZ(3),
  "closed_at"            TIMESTAMPTZ(3),
  "written_off_at"       TIMESTAMPTZ(3)
);
CREATE INDEX "mf_loans_group_idx" ON "mf_loans" ("group_id");
CREATE INDEX "mf_loans_user_idx" ON "mf_loans" ("user_id", "environment", "created_at" DESC);
-- The provisioning run reads every open loan of an environment.
CREATE INDEX "mf_loans_active_idx" ON "mf_loans" ("environment", "id") WHERE "status" = 'active';

-- The schedule: amounts due per instalment (exact to the currency's minor unit; principal sums to
-- the loan's principal), and what has been paid against each.
CREATE TABLE "mf_loan_instalments" (
  "loan_id"        TEXT NOT NULL REFERENCES "mf_loans" ("id"),
  "number"         INTEGER NOT NULL CHECK ("number" >= 1),
  "due_date"       DATE NOT NULL,
  "principal_due"  NUMERIC(38, 18) NOT NULL CHECK ("principal_due" >= 0),
  "interest_due"   NUMERIC(38, 18) NOT NULL CHECK ("interest_due" >= 0),
  "fee_due"        NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("fee_due" >= 0),
  "principal_paid" NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("principal_paid" >= 0 AND "principal_paid" <= "principal_due"),
  "interest_paid"  NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("interest_paid" >= 0 AND "interest_paid" <= "interest_due"),
  "fee_paid"       NUMERIC(38, 18) NOT NULL DEFAULT 0 CHECK ("fee_paid" >= 0 AND "fee_paid" <= "fee_due"),
  "paid_on"        DATE,
  PRIMARY KEY ("loan_id", "number")
);
CREATE INDEX "mf_loan_instalments_unpaid_idx" ON "mf_loan_instalments" ("loan_id", "due_date") WHERE "paid_on" IS NULL;

-- Every repayment, with the ledger entry that moved it and how it was allocated.
CREATE TABLE "mf_loan_repayments" (
  "id"               TEXT PRIMARY KEY,
  "loan_id"          TEXT NOT NULL REFERENCES "mf_loans" ("id"),
  "amount"           NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  -- Who paid: the borrower, another member under joint liability, or the group's guarantee fund.
  "source"           TEXT NOT NULL CHECK ("source" IN ('borrower', 'group_member', 'guarantee_fund')),
  "payer_account_id" TEXT NOT NULL REFERENCES "accounts" ("id"),
  "entry_id"         TEXT NOT NULL,
  "allocation"       JSONB NOT NULL,
  "idempotency_key"  TEXT NOT NULL UNIQUE,
  "paid_on"          DATE NOT NULL,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "mf_loan_repayments_loan_idx" ON "mf_loan_repayments" ("loan_id", "created_at");
