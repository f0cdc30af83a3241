-- MiCA (issue 16): the register a MiCA check reads (crypto-asset issuers with their authorisation,
-- registered white papers by SHA-256) and the checks made. Operators maintain the register; it is
-- seeded with the issuers of the platform's own assets (docs/regtech.md says what each row rests on).

CREATE TABLE "mica_issuers" (
  "id"                TEXT PRIMARY KEY,
  "name"              TEXT NOT NULL,
  "lei"               TEXT,
  -- credit_institution and e_money_institution may issue e-money tokens (MiCA Art. 48);
  -- art_issuer (Art. 16/21) and credit institutions asset-referenced tokens; casp: a service provider.
  "authorisation"     TEXT NOT NULL CHECK ("authorisation" IN ('credit_institution', 'e_money_institution', 'art_issuer', 'casp', 'none')),
  "home_member_state" TEXT,
  "authorised_at"     DATE,
  "notes"             TEXT,
  "created_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

CREATE TABLE "mica_whitepapers" (
  "id"           TEXT PRIMARY KEY,
  "asset_code"   TEXT NOT NULL,
  "issuer_id"    TEXT NOT NULL REFERENCES "mica_issuers" ("id"),
  "sha256"       TEXT NOT NULL CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
  "version"      TEXT NOT NULL,
  "status"       TEXT NOT NULL DEFAULT 'registered' CHECK ("status" IN ('registered', 'withdrawn')),
  "published_at" DATE NOT NULL,
  UNIQUE ("sha256")
);

CREATE TABLE "mica_checks" (
  "id"                TEXT PRIMARY KEY,
  "environment"       TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"           TEXT NOT NULL,
  "asset_type"        TEXT NOT NULL,
  "classification"    TEXT NOT NULL CHECK ("classification" IN ('e_money_token', 'asset_referenced_token', 'other_crypto_asset')),
  "issuer_id"         TEXT NOT NULL REFERENCES "mica_issuers" ("id"),
  "whitepaper_hash"   TEXT NOT NULL,
  "whitepaper_id"     TEXT,
  "is_compliant"      BOOLEAN NOT NULL,
  "compliance_issues" JSONB NOT NULL,
  "recommendations"   JSONB NOT NULL,
  "checked_at"        TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "mica_checks_user_id_environment_checked_at_idx" ON "mica_checks" ("user_id", "environment", "checked_at" DESC);

INSERT INTO "mica_issuers" ("id", "name", "lei", "authorisation", "home_member_state", "authorised_at", "notes") VALUES
  ('iss_circle_eu', 'Circle Internet Financial Europe SAS', NULL, 'e_money_institution', 'FR', '2024-07-01', 'USDC issuer in the EU as an electronic money institution (ACPR); LEI not recorded here'),
  ('iss_tether', 'Tether Limited', NULL, 'none', NULL, NULL, 'USDT issuer; no MiCA authorisation recorded'),
  ('iss_platform', 'This platform (GCU issuer)', NULL, 'art_issuer', NULL, NULL, 'GCU references several currencies and gold: an asset-referenced token; the operator must hold an Art. 16/21 authorisation and keep this row true'),
  ('iss_none', 'No identifiable issuer', NULL, 'none', NULL, NULL, 'BTC, ETH, DAI: no issuer or offeror that MiCA Title II/III/IV authorises');

-- White paper hashes: sha256 of the registered documents' text as recorded here.
INSERT INTO "mica_whitepapers" ("id", "asset_code", "issuer_id", "sha256", "version", "status", "published_at") VALUES
  ('wp_usdc_1', 'USDC', 'iss_circle_eu', encode(sha256('USDC e-money token white paper, Circle Internet Financial Europe SAS, version 1'::bytea), 'hex'), '1', 'registered', '2024-07-01'),
  ('wp_gcu_1', 'GCU', 'iss_platform', encode(sha256('GCU asset-referenced token white paper, version 1'::bytea), 'hex'), '1', 'registered', '2026-11-24'),
  ('wp_gcu_0', 'GCU', 'iss_platform', encode(sha256('GCU asset-referenced token white paper, draft 0'::bytea), 'hex'), '0', 'withdrawn', '2026-11-01');
