-- Webhooks: endpoints, deliveries (one per event and endpoint, plus replays), the attempts of
-- each delivery (also the per-endpoint rate window), and the state of the event consumers.
-- docs/webhooks.md explains the model.

CREATE TABLE "webhooks" (
  "id"                   TEXT PRIMARY KEY,
  "user_id"              TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment"          TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "url"                  TEXT NOT NULL,
  "events"               TEXT[] NOT NULL,
  "description"          TEXT,
  -- Kept readable: every delivery is signed with it (HMAC needs the key itself).
  "secret"               TEXT NOT NULL,
  "active"               BOOLEAN NOT NULL DEFAULT true,
  "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
  "disabled_at"          TIMESTAMPTZ(3),
  "disabled_reason"      TEXT,
  "secret_rotated_at"    TIMESTAMPTZ(3),
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "webhooks_user_id_environment_idx" ON "webhooks" ("user_id", "environment");

CREATE TABLE "webhook_deliveries" (
  "id"                  TEXT PRIMARY KEY,
  "webhook_id"          TEXT NOT NULL REFERENCES "webhooks" ("id") ON DELETE CASCADE,
  "event_id"            TEXT NOT NULL,
  "event_type"          TEXT NOT NULL,
  -- The exact body text: every attempt (and a replay) sends the same bytes.
  "payload"             TEXT NOT NULL,
  "status"              TEXT NOT NULL DEFAULT 'pending'
                          CHECK ("status" IN ('pending', 'retrying', 'succeeded', 'failed', 'cancelled')),
  "attempt_count"       INTEGER NOT NULL DEFAULT 0,
  "last_status_code"    INTEGER,
  "last_error"          TEXT,
  "next_attempt_at"     TIMESTAMPTZ(3),
  "replay_of"           TEXT,
  "workflow_id"         TEXT NOT NULL,
  "workflow_started_at" TIMESTAMPTZ(3),
  "event_occurred_at"   TIMESTAMPTZ(3) NOT NULL,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"        TIMESTAMPTZ(3)
);
-- One original delivery per event and endpoint, whatever the dispatcher retries; replays are extra.
CREATE UNIQUE INDEX "webhook_deliveries_webhook_id_event_id_key" ON "webhook_deliveries" ("webhook_id", "event_id") WHERE "replay_of" IS NULL;
CREATE INDEX "webhook_deliveries_webhook_id_created_at_idx" ON "webhook_deliveries" ("webhook_id", "created_at");
CREATE INDEX "webhook_deliveries_open_idx" ON "webhook_deliveries" ("created_at") WHERE "status" IN ('pending', 'retrying');

CREATE TABLE "webhook_delivery_attempts" (
  "id"            BIGSERIAL PRIMARY KEY,
  "delivery_id"   TEXT NOT NULL REFERENCES "webhook_deliveries" ("id") ON DELETE CASCADE,
  "webhook_id"    TEXT NOT NULL REFERENCES "webhooks" ("id") ON DELETE CASCADE,
  "attempt_no"    INTEGER NOT NULL,
  -- When the attempt was due: the delivery's start, the back-off schedule, or the end of a rate wait.
  "scheduled_at"  TIMESTAMPTZ(3) NOT NULL,
  -- Workflow time when the attempt took its rate slot: the per-endpoint window is measured on it.
  "attempted_at"  TIMESTAMPTZ(3) NOT NULL,
  "duration_ms"   INTEGER,
  "status_code"   INTEGER,
  "error"         TEXT,
  "succeeded"     BOOLEAN,
  "next_retry_at" TIMESTAMPTZ(3),
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "webhook_delivery_attempts_delivery_id_attempt_no_key" ON "webhook_delivery_attempts" ("delivery_id", "attempt_no");
CREATE INDEX "webhook_delivery_attempts_webhook_id_attempted_at_idx" ON "webhook_delivery_attempts" ("webhook_id", "attempted_at");
CREATE INDEX "webhook_delivery_attempts_created_at_idx" ON "webhook_delivery_attempts" ("created_at");

-- Heartbeat and counters of each event consumer (the outbox dispatcher), so the dashboard of any
-- API process sees the worker's consumer.
CREATE TABLE "event_consumers" (
  "name"            TEXT PRIMARY KEY,
  "last_run_at"     TIMESTAMPTZ(3),
  "last_success_at" TIMESTAMPTZ(3),
  "last_error"      TEXT,
  "last_error_at"   TIMESTAMPTZ(3),
  "runs"            BIGINT NOT NULL DEFAULT 0,
  "errors"          BIGINT NOT NULL DEFAULT 0,
  "events_processed" BIGINT NOT NULL DEFAULT 0,
  "deliveries_created" BIGINT NOT NULL DEFAULT 0,
  "interval_ms"     INTEGER,
  "updated_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- The dispatcher reads unpublished events in order; the existing (published_at, occurred_at)
-- index serves it, and this one the dashboard's recent-throughput queries.
CREATE INDEX "outbox_events_published_at_idx" ON "outbox_events" ("published_at") WHERE "published_at" IS NOT NULL;
