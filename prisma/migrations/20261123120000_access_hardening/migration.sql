-- Access hardening (issue 13 items 5-7).

-- Refresh-token families: every refresh token a session has rotated away. Presenting one of them
-- again means the token leaked (or a client replayed it): the whole session is revoked.
CREATE TABLE "user_session_rotated_tokens" (
  "token_hash" TEXT PRIMARY KEY,
  "session_id" TEXT NOT NULL REFERENCES "user_sessions" ("id") ON DELETE CASCADE,
  "rotated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "user_session_rotated_tokens_session_id_idx" ON "user_session_rotated_tokens" ("session_id");

-- One-time tokens that make the first operator (printed by `npm start` while no operator exists).
-- Only the SHA-256 of the token is stored; it is single-use and expires.
CREATE TABLE "operator_bootstrap_tokens" (
  "id"         TEXT PRIMARY KEY,
  "token_hash" TEXT NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "used_at"    TIMESTAMPTZ(3),
  "used_by"    TEXT REFERENCES "users" ("id") ON DELETE SET NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "operator_bootstrap_tokens_token_hash_key" ON "operator_bootstrap_tokens" ("token_hash");

-- Login throttling is per (email, source address), with a ceiling per source address.
CREATE INDEX "login_attempts_email_ip_attempted_at_idx" ON "login_attempts" ("email", "ip", "attempted_at");
CREATE INDEX "login_attempts_ip_attempted_at_idx" ON "login_attempts" ("ip", "attempted_at");
