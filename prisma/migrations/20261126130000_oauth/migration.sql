-- OAuth 2.0 authorization server for third-party apps (docs/oauth.md).
--
-- oauth_clients: apps a user registered. A confidential client has a secret, stored as its SHA-256
-- like API keys (256 bits of entropy: a fast hash allows an indexed lookup); a public client has
-- none and must use PKCE. Redirect URIs match exactly. Deleting a client keeps the row (deleted_at)
-- and revokes its grants.
--
-- oauth_authorization_codes: single use (used_at set by compare-and-swap), short-lived, bound to
-- client, redirect URI, PKCE challenge (S256), scopes and user. grant_id names the grant the code
-- was exchanged for, so a second use revokes it (RFC 6749 §4.1.2).
--
-- oauth_grants: one token family (an authorization, or one client_credentials issue). Access tokens
-- are JWTs carrying the grant id (sid) and are checked against this row on every use, so revoking the
-- grant stops them at once. The current refresh token's hash lives on the row; every hash rotated
-- away is kept in oauth_rotated_refresh_tokens and presenting one again revokes the grant.
--
-- oauth_revoked_tokens: access tokens revoked one by one (RFC 7009), by jti, until they expire.
CREATE TABLE "oauth_clients" (
  "id"            TEXT PRIMARY KEY,
  "user_id"       TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment"   TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "name"          TEXT NOT NULL,
  "client_type"   TEXT NOT NULL CHECK ("client_type" IN ('confidential', 'public')),
  "secret_hash"   TEXT,
  "redirect_uris" TEXT[] NOT NULL,
  "scopes"        TEXT[] NOT NULL CHECK ("scopes" <@ ARRAY['read', 'write', 'delete']::TEXT[] AND cardinality("scopes") > 0),
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "deleted_at"    TIMESTAMPTZ(3),
  CHECK (("client_type" = 'confidential') = ("secret_hash" IS NOT NULL))
);
CREATE INDEX "oauth_clients_user_id_idx" ON "oauth_clients" ("user_id");

CREATE TABLE "oauth_grants" (
  "id"                 TEXT PRIMARY KEY,
  "client_id"          TEXT NOT NULL REFERENCES "oauth_clients" ("id") ON DELETE CASCADE,
  "user_id"            TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "scopes"             TEXT[] NOT NULL,
  "grant_type"         TEXT NOT NULL CHECK ("grant_type" IN ('authorization_code', 'client_credentials')),
  "refresh_token_hash" TEXT,
  "refresh_expires_at" TIMESTAMPTZ(3),
  "revoked_at"         TIMESTAMPTZ(3),
  "revoked_reason"     TEXT,
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "refreshed_at"       TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "oauth_grants_refresh_token_hash_key" ON "oauth_grants" ("refresh_token_hash");
CREATE INDEX "oauth_grants_client_id_idx" ON "oauth_grants" ("client_id");

CREATE TABLE "oauth_authorization_codes" (
  "code_hash"      TEXT PRIMARY KEY,
  "client_id"      TEXT NOT NULL REFERENCES "oauth_clients" ("id") ON DELETE CASCADE,
  "user_id"        TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "environment"    TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "redirect_uri"   TEXT NOT NULL,
  "code_challenge" TEXT NOT NULL,
  "scopes"         TEXT[] NOT NULL,
  "expires_at"     TIMESTAMPTZ(3) NOT NULL,
  "used_at"        TIMESTAMPTZ(3),
  "grant_id"       TEXT REFERENCES "oauth_grants" ("id") ON DELETE SET NULL,
  "created_at"     TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "oauth_authorization_codes_expires_at_idx" ON "oauth_authorization_codes" ("expires_at");

CREATE TABLE "oauth_rotated_refresh_tokens" (
  "token_hash" TEXT PRIMARY KEY,
  "grant_id"   TEXT NOT NULL REFERENCES "oauth_grants" ("id") ON DELETE CASCADE,
  "rotated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "oauth_revoked_tokens" (
  "jti"        TEXT PRIMARY KEY,
  "grant_id"   TEXT NOT NULL REFERENCES "oauth_grants" ("id") ON DELETE CASCADE,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "revoked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
