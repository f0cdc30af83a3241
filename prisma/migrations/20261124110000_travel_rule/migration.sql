-- Travel Rule checks (issue 16): what was checked for a transfer, kept as evidence. The parties
-- are stored in their IVMS101 (2023) form; the USD conversion (rate and its time), the threshold
-- row applied (with its source), the sanctions screening (list version) and the outcome are
-- recorded so the decision can be reproduced later.

CREATE TABLE "travel_rule_checks" (
  "id"                           TEXT PRIMARY KEY,
  "environment"                  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"                      TEXT NOT NULL,
  "transfer_id"                  TEXT NOT NULL,
  "transfer_kind"                TEXT NOT NULL CHECK ("transfer_kind" IN ('transfer', 'bridge')),
  "jurisdiction"                 TEXT NOT NULL,
  "ivms101"                      JSONB NOT NULL,
  "amount"                       NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "currency"                     TEXT NOT NULL,
  "asset_type"                   TEXT,
  "purpose"                      TEXT,
  "amount_usd"                   NUMERIC(38, 18) NOT NULL,
  "usd_rate"                     NUMERIC(38, 18) NOT NULL,
  "usd_rate_as_of"               TIMESTAMPTZ(3) NOT NULL,
  "threshold"                    JSONB NOT NULL,
  "exceeds_threshold"            BOOLEAN NOT NULL,
  "full_identification_required" BOOLEAN NOT NULL,
  "is_compliant"                 BOOLEAN NOT NULL,
  "risk_level"                   TEXT NOT NULL CHECK ("risk_level" IN ('low', 'medium', 'high')),
  "originator_verified"          BOOLEAN NOT NULL,
  "beneficiary_verified"         BOOLEAN NOT NULL,
  "sanctions"                    JSONB NOT NULL,
  "compliance_issues"            JSONB NOT NULL,
  "recommendations"              JSONB NOT NULL,
  "checked_at"                   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "valid_until"                  TIMESTAMPTZ(3) NOT NULL
);
CREATE INDEX "travel_rule_checks_transfer_id_checked_at_idx" ON "travel_rule_checks" ("transfer_id", "checked_at" DESC);
