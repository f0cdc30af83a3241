-- Open banking (docs/open-banking.md, Berlin Group NextGenPSD2): virtual IBANs for accounts,
-- consents, SCA authorisations and the per-day access counts of reads without the customer.

-- Every account has an IBAN a third party can name (DE format, bank code 00000000: no real bank;
-- a production deployment replaces it with its own sort code). Assigned when the account is
-- created, from a sequence, so it never changes and is never reused.
CREATE SEQUENCE "account_iban_seq";
CREATE TABLE "account_ibans" (
  "account_id" TEXT PRIMARY KEY REFERENCES "accounts" ("id") ON DELETE CASCADE,
  "iban"       TEXT NOT NULL UNIQUE,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

-- ISO 13616 check digits: 98 - (BBAN + country letters as digits + "00") mod 97.
CREATE FUNCTION open_banking__iban(p_n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'DE' || lpad((98 - mod(('00000000' || lpad(p_n::text, 10, '0') || '131400')::numeric, 97))::text, 2, '0')
         || '00000000' || lpad(p_n::text, 10, '0')
$$;

CREATE FUNCTION open_banking__assign_iban() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_ibans (account_id, iban) VALUES (NEW.id, open_banking__iban(nextval('account_iban_seq')));
  RETURN NULL;
END $$;
CREATE TRIGGER "accounts_iban" AFTER INSERT ON "accounts" FOR EACH ROW EXECUTE FUNCTION open_banking__assign_iban();
INSERT INTO account_ibans (account_id, iban)
  SELECT id, open_banking__iban(nextval('account_iban_seq')) FROM accounts ORDER BY created_at, id;

-- An account-information consent a TPP asked for. The customer (user_id) is known once they
-- authorise it. received -> valid -> rejected | revokedByPsu | expired | terminatedByTpp; the
-- last four are final (domain/openbanking/consents.ts holds the transitions).
CREATE TABLE "ob_consents" (
  "id"                 TEXT PRIMARY KEY,
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "tpp_id"             TEXT NOT NULL REFERENCES "ob_tpps" ("id"),
  "user_id"            TEXT REFERENCES "users" ("id"),
  "psu_id"             TEXT,
  "access"             JSONB NOT NULL,
  "recurring"          BOOLEAN NOT NULL,
  "valid_until"        DATE NOT NULL,
  "frequency_per_day"  INTEGER NOT NULL CHECK ("frequency_per_day" >= 1),
  "status"             TEXT NOT NULL DEFAULT 'received'
                       CHECK ("status" IN ('received', 'valid', 'rejected', 'revokedByPsu', 'expired', 'terminatedByTpp')),
  "request_id"         TEXT NOT NULL,
  "workflow_id"        TEXT NOT NULL,
  "redirect_uri"       TEXT,
  "nok_redirect_uri"   TEXT,
  "authorised_at"      TIMESTAMPTZ(3),
  "status_changed_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  UNIQUE ("tpp_id", "request_id")
);
CREATE INDEX "ob_consents_user_idx" ON "ob_consents" ("tpp_id", "user_id") WHERE "status" = 'valid';

-- The accounts a valid consent covers and what it allows on each (resolved when authorised).
CREATE TABLE "ob_consent_accounts" (
  "consent_id"   TEXT NOT NULL REFERENCES "ob_consents" ("id") ON DELETE CASCADE,
  "account_id"   TEXT NOT NULL REFERENCES "accounts" ("id"),
  "accounts"     BOOLEAN NOT NULL,
  "balances"     BOOLEAN NOT NULL,
  "transactions" BOOLEAN NOT NULL,
  PRIMARY KEY ("consent_id", "account_id")
);

-- SCA of a consent or a payment (Berlin Group authorisation sub-resources).
CREATE TABLE "ob_authorisations" (
  "id"            TEXT PRIMARY KEY,
  "environment"   TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "tpp_id"        TEXT NOT NULL REFERENCES "ob_tpps" ("id"),
  "subject_kind"  TEXT NOT NULL CHECK ("subject_kind" IN ('consent', 'payment')),
  "subject_id"    TEXT NOT NULL,
  "sca_approach"  TEXT NOT NULL CHECK ("sca_approach" IN ('REDIRECT', 'DECOUPLED')),
  "sca_status"    TEXT NOT NULL CHECK ("sca_status" IN ('received', 'psuIdentified', 'psuAuthenticated', 'scaMethodSelected',
                                                         'started', 'unconfirmed', 'finalised', 'failed', 'exempted')),
  "psu_id"        TEXT,
  "user_id"       TEXT REFERENCES "users" ("id"),
  "sca_method"    TEXT,
  "expires_at"    TIMESTAMPTZ(3) NOT NULL,
  "created_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "ob_authorisations_subject_idx" ON "ob_authorisations" ("subject_kind", "subject_id", "created_at");

-- Reads without the customer present, per consent, endpoint, account and day (RTS 2018/389 Art. 36(5)).
-- One row counted up under its own lock: parallel reads never pass the limit.
CREATE TABLE "ob_access_counts" (
  "consent_id" TEXT NOT NULL REFERENCES "ob_consents" ("id") ON DELETE CASCADE,
  "endpoint"   TEXT NOT NULL,
  "account_id" TEXT NOT NULL,
  "day"        DATE NOT NULL,
  "count"      INTEGER NOT NULL,
  PRIMARY KEY ("consent_id", "endpoint", "account_id", "day")
);
