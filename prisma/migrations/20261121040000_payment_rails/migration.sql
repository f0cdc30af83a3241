-- Payment rails (ACH, Fedwire, RTP, FedNow, SEPA, SWIFT), ACH files, and interledger quotes/payments.

CREATE TABLE "rail_payments" (
  "id"                     TEXT PRIMARY KEY,
  "environment"            TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"                TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"             TEXT NOT NULL REFERENCES "accounts" ("id"),
  "rail"                   TEXT NOT NULL,
  "requested_rail"         TEXT NOT NULL,
  "amount"                 NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "currency"               TEXT NOT NULL REFERENCES "assets" ("code"),
  "status"                 TEXT NOT NULL CHECK ("status" IN ('pending', 'reserved', 'submitted', 'settled', 'completed', 'rejected', 'failed', 'returned')),
  "creditor"               JSONB NOT NULL,
  "memo"                   TEXT,
  "urgency"                TEXT NOT NULL DEFAULT 'standard',
  "routing"                JSONB NOT NULL,
  "workflow_id"            TEXT NOT NULL,
  "reservation_entry_id"   TEXT,
  "reversal_entry_id"      TEXT,
  "network_reference"      TEXT,
  "trace_number"           TEXT,
  "end_to_end_id"          TEXT,
  "rail_message"           TEXT,
  "status_report"          TEXT,
  "settlement_date"        TEXT,
  "expected_settlement_at" TIMESTAMPTZ(3),
  "ach_file_id"            TEXT,
  "failure_code"           TEXT,
  "failure_reason"         TEXT,
  "compensation_executed"  BOOLEAN NOT NULL DEFAULT false,
  "created_at"             TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"             TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"           TIMESTAMPTZ(3),
  "failed_at"              TIMESTAMPTZ(3)
);
CREATE INDEX "rail_payments_user_id_environment_created_at_idx" ON "rail_payments" ("user_id", "environment", "created_at" DESC);
CREATE UNIQUE INDEX "rail_payments_trace_number_key" ON "rail_payments" ("trace_number");
CREATE INDEX "rail_payments_ach_pending_idx" ON "rail_payments" ("environment", "rail", "status", "ach_file_id");

-- Every state change of a rail payment, with its time and detail (the payment's history).
CREATE TABLE "rail_payment_events" (
  "id"          TEXT PRIMARY KEY,
  -- Orders events written in the same millisecond (occurred_at ties).
  "seq"         BIGSERIAL NOT NULL,
  "payment_id"  TEXT NOT NULL REFERENCES "rail_payments" ("id"),
  "status"      TEXT NOT NULL,
  "detail"      JSONB NOT NULL DEFAULT '{}',
  "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX "rail_payment_events_payment_id_occurred_at_idx" ON "rail_payment_events" ("payment_id", "occurred_at");

-- Trace numbers: ODFI routing (8 digits) + this sequence (7 digits).
CREATE SEQUENCE "ach_trace_seq" MINVALUE 1 MAXVALUE 9999999 CYCLE;

CREATE TABLE "ach_files" (
  "id"               TEXT PRIMARY KEY,
  "environment"      TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"          TEXT REFERENCES "users" ("id"),
  "status"           TEXT NOT NULL CHECK ("status" IN ('built', 'transmitted')),
  "file_id_modifier" TEXT NOT NULL,
  "content"          TEXT NOT NULL,
  "entry_count"      INTEGER NOT NULL,
  "total_debit"      NUMERIC(38, 18) NOT NULL,
  "total_credit"     NUMERIC(38, 18) NOT NULL,
  "entry_hash"       TEXT NOT NULL,
  "summary"          JSONB NOT NULL,
  "transmitted_at"   TIMESTAMPTZ(3),
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "ach_files_environment_created_at_idx" ON "ach_files" ("environment", "created_at" DESC);

CREATE TABLE "ilp_quotes" (
  "id"               TEXT PRIMARY KEY,
  "environment"      TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"          TEXT NOT NULL REFERENCES "users" ("id"),
  "receiver"         TEXT NOT NULL,
  "wallet_address"   TEXT NOT NULL,
  "send_amount"      NUMERIC(38, 18) NOT NULL CHECK ("send_amount" > 0),
  "send_currency"    TEXT NOT NULL REFERENCES "assets" ("code"),
  "fee_amount"       NUMERIC(38, 18) NOT NULL CHECK ("fee_amount" >= 0),
  "receive_amount"   NUMERIC(38, 18) NOT NULL CHECK ("receive_amount" > 0),
  "receive_currency" TEXT NOT NULL REFERENCES "assets" ("code"),
  "rate"             NUMERIC(38, 18) NOT NULL,
  "expires_at"       TIMESTAMPTZ(3) NOT NULL,
  "used_at"          TIMESTAMPTZ(3),
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "ilp_payments" (
  "id"                    TEXT PRIMARY KEY,
  "environment"           TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"               TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"            TEXT NOT NULL REFERENCES "accounts" ("id"),
  "quote_id"              TEXT NOT NULL REFERENCES "ilp_quotes" ("id"),
  "status"                TEXT NOT NULL CHECK ("status" IN ('pending', 'reserved', 'completed', 'failed')),
  "workflow_id"           TEXT NOT NULL,
  "entry_id"              TEXT,
  "destination"           TEXT,
  "execution_condition"   TEXT,
  "fulfillment"           TEXT,
  "ilp_reject_code"       TEXT,
  "packets"               JSONB NOT NULL DEFAULT '[]',
  "failure_code"          TEXT,
  "failure_reason"        TEXT,
  "compensation_executed" BOOLEAN NOT NULL DEFAULT false,
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"          TIMESTAMPTZ(3),
  "failed_at"             TIMESTAMPTZ(3)
);
-- A quote pays at most once, whatever races.
CREATE UNIQUE INDEX "ilp_payments_quote_id_key" ON "ilp_payments" ("quote_id");
