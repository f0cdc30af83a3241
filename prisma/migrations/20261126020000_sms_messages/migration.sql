-- Payment-gated SMS (docs/payments-402.md): one row per paid send. The authorization that pays
-- for it is unique here too, so one payment never sends two messages.
CREATE TABLE "sms_messages" (
  "id"                  TEXT PRIMARY KEY,
  "environment"         TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  -- Who may read its status: the payer wallet's owner, or the caller of an authenticated send (MCP).
  "owner_user_id"       TEXT REFERENCES "users" ("id") ON DELETE SET NULL,
  "payer"               TEXT NOT NULL,
  "payment_key"         TEXT NOT NULL,
  "payment_id"          TEXT REFERENCES "x402_payments" ("id"),
  "agent_key_id"        TEXT,
  "destination"         TEXT NOT NULL CHECK ("destination" ~ '^\+[1-9][0-9]{6,14}$'),
  "country_code"        TEXT NOT NULL,
  "sender"              TEXT NOT NULL,
  "body"                TEXT NOT NULL,
  "parts"               INTEGER NOT NULL CHECK ("parts" > 0),
  "encoding"            TEXT NOT NULL CHECK ("encoding" IN ('GSM-7', 'UCS-2')),
  -- USDC atomic units.
  "price_usdc"          NUMERIC(78, 0) NOT NULL CHECK ("price_usdc" > 0),
  "status"              TEXT NOT NULL CHECK ("status" IN ('pending', 'sent', 'delivered', 'failed')),
  "payment_status"      TEXT NOT NULL CHECK ("payment_status" IN ('pending', 'settled', 'refunded', 'failed')),
  "provider"            TEXT,
  "provider_message_id" TEXT,
  "failure_code"        TEXT,
  "failure_reason"      TEXT,
  "workflow_id"         TEXT NOT NULL,
  "submitted_at"        TIMESTAMPTZ(3),
  "sent_at"             TIMESTAMPTZ(3),
  "delivered_at"        TIMESTAMPTZ(3),
  "failed_at"           TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "sms_messages_payment_key_key" ON "sms_messages" ("environment", "payment_key");
CREATE INDEX "sms_messages_owner_idx" ON "sms_messages" ("owner_user_id", "environment", "created_at" DESC);
