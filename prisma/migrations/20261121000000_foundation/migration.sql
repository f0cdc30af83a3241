-- Foundation: users, login sessions, API keys, idempotency records, login throttling.

CREATE TABLE "users" (
  "id"            TEXT PRIMARY KEY,
  "name"          TEXT NOT NULL,
  "email"         TEXT NOT NULL,
  "password_hash" TEXT NOT NULL,
  "is_admin"      BOOLEAN NOT NULL DEFAULT false,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
-- Emails are stored lower-cased; uniqueness is on that form.
CREATE UNIQUE INDEX "users_email_key" ON "users" ("email");

CREATE TABLE "user_sessions" (
  "id"                 TEXT PRIMARY KEY,
  "user_id"            TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "refresh_token_hash" TEXT NOT NULL,
  "expires_at"         TIMESTAMPTZ(3) NOT NULL,
  "revoked_at"         TIMESTAMPTZ(3),
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "refreshed_at"       TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "user_sessions_refresh_token_hash_key" ON "user_sessions" ("refresh_token_hash");
CREATE INDEX "user_sessions_user_id_idx" ON "user_sessions" ("user_id");

CREATE TABLE "api_keys" (
  "id"                    TEXT PRIMARY KEY,
  "user_id"               TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "name"                  TEXT NOT NULL,
  "key_prefix"            TEXT NOT NULL,
  "key_hash"              TEXT NOT NULL,
  "environment"           TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "permissions"           TEXT[] NOT NULL,
  "ip_allowlist"          TEXT[] NOT NULL DEFAULT '{}',
  "rate_limit_per_minute" INTEGER,
  "expires_at"            TIMESTAMPTZ(3),
  "revoked_at"            TIMESTAMPTZ(3),
  "last_used_at"          TIMESTAMPTZ(3),
  "rotated_from_id"       TEXT,
  "created_at"            TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" ("key_hash");
CREATE INDEX "api_keys_user_id_idx" ON "api_keys" ("user_id");

CREATE TABLE "idempotency_keys" (
  "scope"            TEXT NOT NULL,
  "key"              TEXT NOT NULL,
  "method"           TEXT NOT NULL,
  "path"             TEXT NOT NULL,
  "request_hash"     TEXT NOT NULL,
  "state"            TEXT NOT NULL CHECK ("state" IN ('in_flight', 'completed')),
  "response_status"  INTEGER,
  "response_body"    TEXT,
  "response_headers" JSONB,
  "created_at"       TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "locked_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "expires_at"       TIMESTAMPTZ(3) NOT NULL,
  PRIMARY KEY ("scope", "key")
);
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys" ("expires_at");

CREATE TABLE "login_attempts" (
  "id"           BIGSERIAL PRIMARY KEY,
  "email"        TEXT NOT NULL,
  "ip"           TEXT NOT NULL,
  "succeeded"    BOOLEAN NOT NULL,
  "attempted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "login_attempts_email_attempted_at_idx" ON "login_attempts" ("email", "attempted_at");
