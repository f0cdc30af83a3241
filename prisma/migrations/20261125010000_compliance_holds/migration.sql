-- Compliance holds: an outgoing payment whose party matched the sanctions list (or could not be
-- screened) waits here, its amount reserved, until a compliance officer releases or rejects it.
-- One hold per payment: the workflow's screening activity may run again and finds it.
CREATE TABLE "compliance_holds" (
  "id"            TEXT PRIMARY KEY,
  "environment"   TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"       TEXT NOT NULL REFERENCES "users" ("id"),
  "subject_kind"  TEXT NOT NULL CHECK ("subject_kind" IN ('rail_payment', 'ilp_payment')),
  "subject_id"    TEXT NOT NULL,
  "workflow_id"   TEXT NOT NULL,
  "framework"     TEXT NOT NULL CHECK ("framework" IN ('sanctions')),
  "reason_code"   TEXT NOT NULL,
  "party"         TEXT NOT NULL,
  "screened_name" TEXT NOT NULL,
  "screening"     JSONB,
  "status"        TEXT NOT NULL CHECK ("status" IN ('open', 'released', 'rejected', 'expired')),
  "decided_by"    TEXT,
  "decision_note" TEXT,
  "decided_at"    TIMESTAMPTZ(3),
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "compliance_holds_subject_key" ON "compliance_holds" ("subject_kind", "subject_id");
CREATE INDEX "compliance_holds_status_created_at_idx" ON "compliance_holds" ("status", "created_at");
