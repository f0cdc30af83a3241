-- Passkeys (WebAuthn / FIDO2) for the mobile app (docs/mobile.md, "Passkeys").
--
-- passkey_credentials: one row per registered authenticator credential. The public key is the
-- COSE_Key the authenticator attested (bytea, never re-encoded); the signature counter must
-- advance on every use (a counter that goes backwards means a cloned authenticator and is refused),
-- so it is updated with a compare-and-swap on the stored value. The credential id (base64url) is
-- unique across users: an id is looked up before anything else on sign-in.
--
-- webauthn_challenges: every challenge the server hands out, single use and short-lived
-- (WEBAUTHN_CHALLENGE_TTL_SECONDS). A registration challenge belongs to the user who asked for it;
-- an authentication challenge to the user whose email was given (and known), else to nobody
-- (discoverable credentials). Marking one used happens in the same statement as the counter update,
-- so the same signed assertion can never be accepted twice. Expired rows are purged as new ones
-- are issued.
--
-- user_sessions.auth_method: how the session was started. A passkey session is "biometric" (the
-- authenticator verified its user), which routes may require for sensitive mobile operations.
ALTER TABLE "user_sessions"
  ADD COLUMN "auth_method" TEXT NOT NULL DEFAULT 'password' CHECK ("auth_method" IN ('password', 'passkey'));

CREATE TABLE "passkey_credentials" (
  "id"            TEXT PRIMARY KEY,
  "user_id"       TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "credential_id" TEXT NOT NULL CHECK ("credential_id" ~ '^[A-Za-z0-9_-]+$' AND length("credential_id") <= 1366),
  "user_handle"   TEXT NOT NULL,
  "name"          TEXT NOT NULL,
  "public_key"    BYTEA NOT NULL,
  "counter"       BIGINT NOT NULL DEFAULT 0 CHECK ("counter" BETWEEN 0 AND 4294967295),
  "transports"    TEXT[] NOT NULL DEFAULT '{}',
  "device_type"   TEXT NOT NULL CHECK ("device_type" IN ('singleDevice', 'multiDevice')),
  "backed_up"     BOOLEAN NOT NULL DEFAULT false,
  "aaguid"        TEXT NOT NULL,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "last_used_at"  TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "passkey_credentials_credential_id_key" ON "passkey_credentials" ("credential_id");
CREATE INDEX "passkey_credentials_user_id_idx" ON "passkey_credentials" ("user_id");

CREATE TABLE "webauthn_challenges" (
  "challenge"   TEXT PRIMARY KEY,
  "purpose"     TEXT NOT NULL CHECK ("purpose" IN ('registration', 'authentication')),
  "user_id"     TEXT REFERENCES "users" ("id") ON DELETE CASCADE,
  "user_handle" TEXT,
  "expires_at"  TIMESTAMPTZ(3) NOT NULL,
  "used_at"     TIMESTAMPTZ(3),
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CHECK ("purpose" = 'authentication' OR ("user_id" IS NOT NULL AND "user_handle" IS NOT NULL))
);
CREATE INDEX "webauthn_challenges_expires_at_idx" ON "webauthn_challenges" ("expires_at");
