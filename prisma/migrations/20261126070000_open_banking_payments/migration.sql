-- Open banking payment initiation (PIS, Berlin Group NextGenPSD2; domain/openbanking/payments.ts).
-- A TPP initiates a payment from a customer's account; the customer authorises it by SCA; the
-- payment then goes out through the existing payment rails (its rail_payments row and workflow
-- reserve, screen, submit and post: nothing here moves money).
--
-- One row per initiation. X-Request-ID is unique per TPP, so a replayed request finds the row it
-- created instead of creating a second payment. The debtor IBAN is resolved to the account and its
-- owner when the payment is received; an IBAN that is no platform account's is kept as given (BG:
-- it is checked at SCA, where the payment is rejected).
--
-- transaction_status is the ISO 20022 code the TPP sees: RCVD -> ACTC (authorised) -> ACSP (with
-- the rail) -> ACSC; RJCT and CANC end it earlier. ACSC, RJCT and CANC are final (the transitions
-- are in domain/openbanking/payment-records.ts). status_reason is the ISO reason of RJCT/CANC.
CREATE TABLE "ob_payments" (
  "id"                 TEXT PRIMARY KEY,
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "tpp_id"             TEXT NOT NULL REFERENCES "ob_tpps" ("id"),
  "request_id"         TEXT NOT NULL,
  "product"            TEXT NOT NULL CHECK ("product" IN ('sepa-credit-transfers', 'instant-sepa-credit-transfers', 'cross-border-credit-transfers')),
  "rail"               TEXT NOT NULL,
  "debtor_iban"        TEXT NOT NULL,
  "account_id"         TEXT REFERENCES "accounts" ("id"),
  "user_id"            TEXT REFERENCES "users" ("id"),
  "creditor"           JSONB NOT NULL,
  "amount"             NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "currency"           TEXT NOT NULL REFERENCES "assets" ("code"),
  "remittance"         TEXT,
  "end_to_end_id"      TEXT,
  "transaction_status" TEXT NOT NULL DEFAULT 'RCVD'
                       CHECK ("transaction_status" IN ('RCVD', 'PATC', 'ACTC', 'ACSP', 'ACSC', 'RJCT', 'CANC')),
  "status_reason"      TEXT,
  "rail_payment_id"    TEXT UNIQUE REFERENCES "rail_payments" ("id"),
  "workflow_id"        TEXT NOT NULL,
  "authorised_at"      TIMESTAMPTZ(3),
  "created_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"         TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  UNIQUE ("tpp_id", "request_id")
);
