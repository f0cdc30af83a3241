-- Microfinance teller cash (docs/microfinance-teller.md): branches (offices) with a vault per
-- currency, their staff (tellers and supervisors), cashier sessions with a till per currency, and
-- teller transactions at the counter. Fineract's offices, tellers, cashiers and cash transactions.
--
-- No balance lives here. The vault, each session's till, the FX position and cash-variance
-- accounts are internal ledger accounts; every movement of cash is a balanced ledger entry, and
-- the ledger's no-overdraft rule (under its row locks) is what keeps a vault or a till from paying
-- out cash it does not hold, also under concurrency. These rows hold who, where and which entry.

CREATE TABLE "mf_offices" (
  "id"          TEXT PRIMARY KEY,
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "name"        TEXT NOT NULL,
  "external_id" TEXT,
  -- Fineract's office hierarchy (head office -> branches); informational here.
  "parent_id"   TEXT REFERENCES "mf_offices" ("id"),
  -- Margin taken on the mid rate of a currency exchange at this office's counters (0.01 = 1 %).
  "fx_spread"   NUMERIC(8, 6) NOT NULL DEFAULT 0.01 CHECK ("fx_spread" >= 0 AND "fx_spread" < 0.5),
  "created_by"  TEXT NOT NULL REFERENCES "users" ("id"),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "mf_offices_environment_idx" ON "mf_offices" ("environment", "created_at");

-- Staff of an office. A teller serves one office (per environment); a supervisor approves cash
-- variances of the offices where they are supervisor.
CREATE TABLE "mf_office_staff" (
  "id"          TEXT PRIMARY KEY,
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "office_id"   TEXT NOT NULL REFERENCES "mf_offices" ("id"),
  "user_id"     TEXT NOT NULL REFERENCES "users" ("id"),
  "role"        TEXT NOT NULL CHECK ("role" IN ('teller', 'supervisor')),
  "created_by"  TEXT NOT NULL REFERENCES "users" ("id"),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "mf_office_staff_office_user_role_key" ON "mf_office_staff" ("office_id", "user_id", "role");
CREATE UNIQUE INDEX "mf_office_staff_one_office_per_teller" ON "mf_office_staff" ("environment", "user_id") WHERE "role" = 'teller';
CREATE INDEX "mf_office_staff_user_idx" ON "mf_office_staff" ("user_id");

-- The vault of an office in one currency: an internal ledger account (debit-normal, no overdraft).
CREATE TABLE "mf_office_vaults" (
  "office_id"         TEXT NOT NULL REFERENCES "mf_offices" ("id"),
  "currency"          TEXT NOT NULL REFERENCES "assets" ("code"),
  "ledger_account_id" TEXT NOT NULL REFERENCES "ledger_accounts" ("id"),
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  PRIMARY KEY ("office_id", "currency")
);

-- A cashier session: a teller at the counter from opening (float from the vault) to closing
-- (counted cash back to the vault). open -> closed, or open -> variance_pending -> closed when the
-- count differs and a supervisor approves the variance. A teller has at most one unsettled session.
CREATE TABLE "mf_teller_sessions" (
  "id"                TEXT PRIMARY KEY,
  "environment"       TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "office_id"         TEXT NOT NULL REFERENCES "mf_offices" ("id"),
  "teller_user_id"    TEXT NOT NULL REFERENCES "users" ("id"),
  "status"            TEXT NOT NULL DEFAULT 'open' CHECK ("status" IN ('open', 'variance_pending', 'closed')),
  "open_entry_id"     TEXT REFERENCES "journal_entries" ("id"),
  "close_entry_id"    TEXT REFERENCES "journal_entries" ("id"),
  "variance_entry_id" TEXT REFERENCES "journal_entries" ("id"),
  "variance_approved_by" TEXT REFERENCES "users" ("id"),
  "opened_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "counted_at"        TIMESTAMPTZ(3),
  "closed_at"         TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "mf_teller_sessions_one_unsettled_per_teller" ON "mf_teller_sessions" ("environment", "teller_user_id") WHERE "status" <> 'closed';
CREATE INDEX "mf_teller_sessions_office_idx" ON "mf_teller_sessions" ("office_id", "opened_at");

-- The till of a session in one currency (an internal ledger account, debit-normal, no overdraft),
-- and the count at closing: variance = counted - expected (positive: over, negative: short).
CREATE TABLE "mf_teller_session_tills" (
  "session_id"        TEXT NOT NULL REFERENCES "mf_teller_sessions" ("id"),
  "currency"          TEXT NOT NULL REFERENCES "assets" ("code"),
  "ledger_account_id" TEXT NOT NULL REFERENCES "ledger_accounts" ("id"),
  "allocated"         NUMERIC(38, 18) NOT NULL DEFAULT 0,
  "expected"          NUMERIC(38, 18),
  "counted"           NUMERIC(38, 18),
  "variance"          NUMERIC(38, 18),
  PRIMARY KEY ("session_id", "currency")
);

-- Cash transactions at the counter. The money is the ledger entry (entry_id); the row says who,
-- where and, for an exchange, the rate used (snapshot of the rates table and the office spread).
CREATE TABLE "mf_teller_transactions" (
  "id"              TEXT PRIMARY KEY,
  "environment"     TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "session_id"      TEXT NOT NULL REFERENCES "mf_teller_sessions" ("id"),
  "office_id"       TEXT NOT NULL REFERENCES "mf_offices" ("id"),
  "teller_user_id"  TEXT NOT NULL REFERENCES "users" ("id"),
  "type"            TEXT NOT NULL CHECK ("type" IN ('cash_deposit', 'cash_withdrawal', 'currency_exchange')),
  "account_id"      TEXT REFERENCES "accounts" ("id"),
  "currency"        TEXT NOT NULL REFERENCES "assets" ("code"),
  "amount"          NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "to_currency"     TEXT REFERENCES "assets" ("code"),
  "to_amount"       NUMERIC(38, 18),
  "mid_rate"        NUMERIC(38, 18),
  "spread"          NUMERIC(8, 6),
  "applied_rate"    NUMERIC(38, 18),
  "rate_as_of"      TIMESTAMPTZ(3),
  "entry_id"        TEXT NOT NULL UNIQUE REFERENCES "journal_entries" ("id"),
  "idempotency_key" TEXT NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CHECK (("type" = 'currency_exchange') = ("to_currency" IS NOT NULL AND "to_amount" IS NOT NULL AND "applied_rate" IS NOT NULL))
);
CREATE UNIQUE INDEX "mf_teller_transactions_environment_idempotency_key_key" ON "mf_teller_transactions" ("environment", "idempotency_key");
CREATE INDEX "mf_teller_transactions_session_idx" ON "mf_teller_transactions" ("session_id", "created_at");
