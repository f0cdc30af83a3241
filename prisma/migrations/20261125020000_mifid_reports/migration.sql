-- MiFID II transaction reports (issue 16): the instrument register (which platform assets are
-- reportable financial instruments, with ISIN, CFI and full name), the reports built for GCU buys
-- and DeFi swaps (RTS 22 as ISO 20022 auth.016 files) with their lifecycle
--   draft -> validated -> submitted -> accepted | rejected
-- and the register the sandbox competent authority keeps of the transaction reference numbers it
-- accepted (domain/regtech/mifid/authority.ts). docs/regtech.md, "MiFID II".

CREATE TABLE "mifid_instruments" (
  "asset_code" TEXT PRIMARY KEY REFERENCES "assets" ("code"),
  -- ISO 6166: country or issuer prefix, 9 alphanumerics, Luhn check digit (checked by the platform).
  "isin"       TEXT NOT NULL UNIQUE CHECK ("isin" ~ '^[A-Z]{2}[A-Z0-9]{9}[0-9]$'),
  -- ISO 10962 (2015).
  "cfi"        TEXT NOT NULL CHECK ("cfi" ~ '^[A-Z]{6}$'),
  "full_name"  TEXT NOT NULL CHECK (length("full_name") BETWEEN 1 AND 350),
  "notes"      TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- Sandbox value: ZZ is an ISO 3166 user-assigned code, so no real ISIN starts with it; the check
-- digit 8 is the ISIN Luhn digit of ZZGCU000001. MMXXXX: CFI "others (miscellaneous), other
-- assets, attributes not applicable". Replace with the real values before reporting GCU for real.
INSERT INTO "mifid_instruments" ("asset_code", "isin", "cfi", "full_name", "notes") VALUES
  ('GCU', 'ZZGCU0000018', 'MMXXXX', 'Global Currency Unit basket token (sandbox)', 'Sandbox ISIN (ZZ prefix: user-assigned, never issued); check digit valid');

CREATE TABLE "mifid_reports" (
  "id"                           TEXT PRIMARY KEY,
  "environment"                  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"                      TEXT NOT NULL REFERENCES "users" ("id"),
  "transaction_id"               TEXT NOT NULL,
  "transaction_kind"             TEXT NOT NULL CHECK ("transaction_kind" IN ('basket_buy', 'defi_swap')),
  "report_type"                  TEXT NOT NULL CHECK ("report_type" IN ('NEWT', 'CANC')),
  -- The member state whose competent authority receives the report.
  "jurisdiction"                 TEXT NOT NULL CHECK ("jurisdiction" ~ '^[A-Z]{2}$'),
  "transaction_reference_number" TEXT NOT NULL CHECK ("transaction_reference_number" ~ '^[A-Z0-9]{1,52}$'),
  "isin"                         TEXT,
  "status"                       TEXT NOT NULL CHECK ("status" IN ('draft', 'validated', 'submitted', 'accepted', 'rejected')),
  -- The report file: head.003 BizData with the head.001 AppHdr and the auth.016 Document.
  "xml"                          TEXT NOT NULL,
  -- True only when the file passed the schemas; xsd_reason says why not otherwise.
  "xsd_validated"                BOOLEAN NOT NULL,
  "xsd_reason"                   TEXT,
  "validation_issues"            JSONB NOT NULL DEFAULT '[]',
  "trade_executed_at"            TIMESTAMPTZ(3) NOT NULL,
  -- T+1 working day (NEWT only): the end of the working day after the trade.
  "deadline_at"                  TIMESTAMPTZ(3),
  "overdue"                      BOOLEAN NOT NULL DEFAULT false,
  "flagged_at"                   TIMESTAMPTZ(3),
  "authority_feedback"           JSONB,
  "cancels_report_id"            TEXT REFERENCES "mifid_reports" ("id"),
  "created_at"                   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"                   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "submitted_at"                 TIMESTAMPTZ(3),
  "decided_at"                   TIMESTAMPTZ(3),
  CONSTRAINT "mifid_reports_cancel_shape" CHECK (("report_type" = 'CANC') = ("cancels_report_id" IS NOT NULL)),
  CONSTRAINT "mifid_reports_deadline_shape" CHECK ("report_type" = 'CANC' OR "deadline_at" IS NOT NULL),
  CONSTRAINT "mifid_reports_overdue_shape" CHECK ("overdue" = ("flagged_at" IS NOT NULL)),
  CONSTRAINT "mifid_reports_validated_shape" CHECK ("status" = 'draft' OR "xsd_validated"),
  CONSTRAINT "mifid_reports_decided_shape" CHECK (("status" IN ('accepted', 'rejected')) = ("decided_at" IS NOT NULL AND "authority_feedback" IS NOT NULL))
);
CREATE INDEX "mifid_reports_user_id_environment_created_at_idx" ON "mifid_reports" ("user_id", "environment", "created_at" DESC);
CREATE INDEX "mifid_reports_transaction_id_idx" ON "mifid_reports" ("transaction_id");
-- At most one NEWT of a trade on its way (not yet decided) at a time.
CREATE UNIQUE INDEX "mifid_reports_one_open_newt_key" ON "mifid_reports" ("environment", "transaction_id")
  WHERE "report_type" = 'NEWT' AND "status" IN ('draft', 'validated', 'submitted');
-- A NEWT is cancelled at most once (a rejected CANC does not count).
CREATE UNIQUE INDEX "mifid_reports_one_live_cancel_key" ON "mifid_reports" ("cancels_report_id") WHERE "status" <> 'rejected';
-- What the hourly deadline check scans.
CREATE INDEX "mifid_reports_deadline_at_idx" ON "mifid_reports" ("deadline_at") WHERE NOT "overdue";

-- The sandbox competent authority's own record of accepted reports: one live TRN per executing
-- entity; a cancellation takes it off file.
CREATE TABLE "mifid_sandbox_authority_register" (
  "report_id"                    TEXT PRIMARY KEY,
  "environment"                  TEXT NOT NULL,
  "jurisdiction"                 TEXT NOT NULL,
  "executing_lei"                TEXT NOT NULL,
  "transaction_reference_number" TEXT NOT NULL,
  "accepted_at"                  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "cancelled_at"                 TIMESTAMPTZ(3),
  "cancel_report_id"             TEXT UNIQUE
);
CREATE UNIQUE INDEX "mifid_sandbox_authority_register_live_trn_key" ON "mifid_sandbox_authority_register" ("environment", "executing_lei", "transaction_reference_number")
  WHERE "cancelled_at" IS NULL;
