-- SDK generation for partners (issue 18, docs/partner.md "SDK generation"): the packages built from
-- the platform's own OpenAPI document, and each generation a caller asked for.
--
-- A package is content-addressed: cache_key hashes the filtered document, the generator and its
-- version and every option, so identical inputs find the same bytes (byte-identical by construction:
-- fixed mtimes, sorted entries). Packages hold no customer data and are shared by every caller; a
-- signed, expiring link is what lets one be downloaded.
CREATE TABLE "sdk_packages" (
  "id"           TEXT PRIMARY KEY,
  "cache_key"    TEXT NOT NULL UNIQUE CHECK ("cache_key" ~ '^[0-9a-f]{64}$'),
  "language"     TEXT NOT NULL CHECK ("language" IN ('typescript', 'python')),
  "package_name" TEXT NOT NULL,
  "version"      TEXT NOT NULL,
  -- What the download is called: the npm tarball (.tgz) or the wheel (.whl).
  "filename"     TEXT NOT NULL,
  "content_type" TEXT NOT NULL CHECK ("content_type" IN ('application/gzip', 'application/zip')),
  "sha256"       TEXT NOT NULL CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  "size"         INTEGER NOT NULL CHECK ("size" > 0),
  "bytes"        BYTEA NOT NULL,
  -- The generator that wrote the code, e.g. '@hey-api/openapi-ts 0.95.0'.
  "generator"    TEXT NOT NULL,
  "api_version"  TEXT NOT NULL,
  "modules"      TEXT[] NOT NULL,
  -- How long the generator and packaging took (0 for nothing: it is the first build that counts).
  "build_ms"     INTEGER NOT NULL,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- One row per request. partner_id is the partner area's id (no foreign key: that table belongs to the
-- partner onboarding area); request is the normalized request, result the packages once completed
-- (or the error once failed). workflow_id is null when every package was already built (a cache hit
-- completes at once, with no workflow).
CREATE TABLE "sdk_generations" (
  "id"           TEXT PRIMARY KEY,
  "partner_id"   TEXT,
  "environment"  TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"      TEXT NOT NULL REFERENCES "users" ("id"),
  "request"      JSONB NOT NULL,
  "status"       TEXT NOT NULL CHECK ("status" IN ('pending', 'completed', 'failed')),
  "result"       JSONB,
  "workflow_id"  TEXT,
  "created_at"   TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at" TIMESTAMPTZ(3),
  CHECK (("status" = 'pending') = ("completed_at" IS NULL))
);
CREATE INDEX "sdk_generations_user_id_created_at_idx" ON "sdk_generations" ("user_id", "environment", "created_at" DESC);
CREATE INDEX "sdk_generations_partner_id_created_at_idx" ON "sdk_generations" ("partner_id", "created_at" DESC) WHERE "partner_id" IS NOT NULL;
