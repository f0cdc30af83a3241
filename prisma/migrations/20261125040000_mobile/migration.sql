-- Mobile payments (docs/mobile.md): how other users find a customer (handle, phone), payment
-- intents, devices with push tokens, notifications and the pushes sent for them. Receipts are
-- views of posted intents and transfers (domain/mobile/receipts.ts), not rows of their own.

CREATE TABLE "mobile_profiles" (
  "user_id"    TEXT PRIMARY KEY REFERENCES "users" ("id") ON DELETE CASCADE,
  -- Lower case, 3-30 of [a-z0-9_], unique: what P2P senders type after @.
  "handle"     TEXT CHECK ("handle" ~ '^[a-z0-9_]{3,30}$'),
  -- E.164, verified by libphonenumber before it is stored.
  "phone"      TEXT CHECK ("phone" ~ '^\+[1-9][0-9]{6,14}$'),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "mobile_profiles_handle_key" ON "mobile_profiles" ("handle");
CREATE UNIQUE INDEX "mobile_profiles_phone_key" ON "mobile_profiles" ("phone");

CREATE TABLE "payment_intents" (
  "id"                  TEXT PRIMARY KEY,
  "environment"         TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  -- The payer: the customer whose app created the intent and who confirms it.
  "user_id"             TEXT NOT NULL REFERENCES "users" ("id"),
  "payee_user_id"       TEXT NOT NULL REFERENCES "users" ("id"),
  "recipient"           TEXT NOT NULL,
  "amount"              NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "currency"            TEXT NOT NULL REFERENCES "assets" ("code"),
  "description"         TEXT,
  "status"              TEXT NOT NULL CHECK ("status" IN ('requires_confirmation', 'processing', 'succeeded', 'canceled', 'expired')),
  "requires_passkey"    BOOLEAN NOT NULL,
  "amount_usd"          NUMERIC(38, 18) NOT NULL,
  "payer_account_id"    TEXT REFERENCES "accounts" ("id"),
  "payee_account_id"    TEXT REFERENCES "accounts" ("id"),
  "fee_amount"          NUMERIC(38, 18),
  "entry_id"            TEXT,
  "workflow_id"         TEXT NOT NULL,
  "last_error_code"     TEXT,
  "last_error_message"  TEXT,
  "cancellation_reason" TEXT,
  "expires_at"          TIMESTAMPTZ(3) NOT NULL,
  "confirmed_at"        TIMESTAMPTZ(3),
  "succeeded_at"        TIMESTAMPTZ(3),
  "canceled_at"         TIMESTAMPTZ(3),
  "expired_at"          TIMESTAMPTZ(3),
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "payment_intents_user_id_created_at_idx" ON "payment_intents" ("user_id", "environment", "created_at" DESC, "id" DESC);
CREATE INDEX "payment_intents_payee_user_id_created_at_idx" ON "payment_intents" ("payee_user_id", "environment", "created_at" DESC, "id" DESC);

-- The activity feed counts what a customer received from others with an index-only scan.
CREATE INDEX "transfers_to_account_id_user_id_idx" ON "transfers" ("to_account_id", "user_id");

CREATE TABLE "mobile_devices" (
  "id"           TEXT PRIMARY KEY,
  "user_id"      TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment"  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "platform"     TEXT NOT NULL CHECK ("platform" IN ('ios', 'android', 'web')),
  "name"         TEXT,
  -- What the push service needs to reach the device; never logged, shown only as a suffix.
  "push_token"   TEXT NOT NULL,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "revoked_at"   TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "mobile_devices_push_token_key" ON "mobile_devices" ("platform", "push_token");
CREATE INDEX "mobile_devices_user_id_idx" ON "mobile_devices" ("user_id", "environment");

CREATE TABLE "notifications" (
  "id"          TEXT PRIMARY KEY,
  "user_id"     TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  -- The outbox event it was made from: one notification per event and user.
  "event_id"    TEXT NOT NULL,
  "event_type"  TEXT NOT NULL,
  "title"       TEXT NOT NULL,
  "body"        TEXT NOT NULL,
  "data"        JSONB NOT NULL DEFAULT '{}',
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "read_at"     TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "notifications_event_id_user_id_key" ON "notifications" ("event_id", "user_id");
CREATE INDEX "notifications_user_id_created_at_idx" ON "notifications" ("user_id", "environment", "created_at" DESC, "id" DESC);

CREATE TABLE "push_deliveries" (
  "id"              TEXT PRIMARY KEY,
  "notification_id" TEXT NOT NULL REFERENCES "notifications" ("id") ON DELETE CASCADE,
  "device_id"       TEXT NOT NULL REFERENCES "mobile_devices" ("id") ON DELETE CASCADE,
  "adapter"         TEXT NOT NULL,
  "status"          TEXT NOT NULL CHECK ("status" IN ('sent', 'failed')),
  "provider_message_id" TEXT,
  "error"           TEXT,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "push_deliveries_notification_id_device_id_key" ON "push_deliveries" ("notification_id", "device_id");
