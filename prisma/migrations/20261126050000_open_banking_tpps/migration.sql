-- Open banking (PSD2, Berlin Group NextGenPSD2; issue 21): third-party providers (TPPs) identified by
-- their eIDAS certificates, and the sandbox CA that issues test certificates.
--
-- ob_sandbox_ca: at most one row (id is always true), created on first use by
-- domain/openbanking/sandbox-ca.ts with INSERT ... ON CONFLICT DO NOTHING, so concurrent first uses on
-- several instances agree on one CA. Its private key is kept here in clear on purpose: it only signs
-- sandbox certificates, which reach sandbox data only; production TPPs must chain to the CAs of
-- OPEN_BANKING_TRUST_STORE, which the platform never holds keys for.
CREATE TABLE "ob_sandbox_ca" (
  "id"              BOOLEAN PRIMARY KEY DEFAULT true CHECK ("id"),
  "key_pem"         TEXT NOT NULL,
  "certificate_pem" TEXT NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- ob_tpps: one row per registered certificate, found by the SHA-256 fingerprint of its DER on every
-- open banking call (domain/openbanking/tpps.ts identifyTpp); registering the same certificate again
-- returns the same row. What the certificate says (authorisation number, PSD2 roles, competent
-- authority, validity) is copied out at registration, so identifying a TPP never parses it again.
-- environment: 'sandbox' when the sandbox CA signed it, 'production' when it chains to the trust store.
-- status: 'blocked' refuses the TPP at once (CERTIFICATE_BLOCKED) while keeping its history.
CREATE TABLE "ob_tpps" (
  "id"                   TEXT PRIMARY KEY,
  "environment"          TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "name"                 TEXT NOT NULL,
  "authorisation_number" TEXT NOT NULL,
  "nca_name"             TEXT NOT NULL,
  "nca_id"               TEXT NOT NULL,
  "roles"                TEXT[] NOT NULL CHECK (cardinality("roles") > 0 AND "roles" <@ ARRAY['PSP_AS', 'PSP_PI', 'PSP_AI', 'PSP_IC']::TEXT[]),
  "fingerprint"          TEXT NOT NULL CHECK ("fingerprint" ~ '^[0-9a-f]{64}$'),
  "certificate_pem"      TEXT NOT NULL,
  "not_before"           TIMESTAMPTZ(3) NOT NULL,
  "not_after"            TIMESTAMPTZ(3) NOT NULL,
  "status"               TEXT NOT NULL DEFAULT 'active' CHECK ("status" IN ('active', 'blocked')),
  "created_at"           TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "ob_tpps_fingerprint_key" UNIQUE ("fingerprint")
);
-- A TPP's certificates over time (renewals) share its authorisation number.
CREATE INDEX "ob_tpps_authorisation_number_idx" ON "ob_tpps" ("environment", "authorisation_number");
