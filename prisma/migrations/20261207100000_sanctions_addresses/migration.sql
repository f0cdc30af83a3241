-- Sanctions on crypto leaving the platform (issue 41): the digital-currency addresses OFAC lists in
-- an SDN entry's remarks ("Digital Currency Address - ETH 0x..."), loaded with the list, and bridges
-- to an address outside the platform held for review like rail and Interledger payments.

-- NULL: the list was loaded before addresses were read, so the next start loads it again.
ALTER TABLE "sanctions_lists" ADD COLUMN "address_count" INTEGER;

-- One row per listed address and currency tag. Rows carry the list version they were loaded with;
-- screening joins on the loaded version, so a result always names the list it was made against.
CREATE TABLE "sanctions_addresses" (
  "list_id"      TEXT NOT NULL REFERENCES "sanctions_lists" ("id"),
  "list_version" TEXT NOT NULL,
  -- Normalised for exact comparison: EVM checksummed (EIP-55), bech32 lower case, others as listed.
  "address"      TEXT NOT NULL,
  -- OFAC's currency tag: ETH, XBT, USDT, XRP, ...
  "currency"     TEXT NOT NULL,
  "listed_as"    TEXT NOT NULL,
  "ent_num"      INTEGER NOT NULL,
  -- The SDN entry's primary name; NULL when the entry is only in sdn_comments.csv (files of different dates).
  "name"         TEXT,
  PRIMARY KEY ("list_id", "address", "currency", "ent_num")
);

ALTER TABLE "compliance_holds" DROP CONSTRAINT "compliance_holds_subject_kind_check";
ALTER TABLE "compliance_holds" ADD CONSTRAINT "compliance_holds_subject_kind_check"
  CHECK ("subject_kind" IN ('rail_payment', 'ilp_payment', 'bridge'));

-- The AI's compliance flags now read holds of every kind (a held bridge is flagged too).
DROP INDEX "compliance_holds_payment_user_idx";
CREATE INDEX "compliance_holds_payment_user_idx" ON "compliance_holds" ("user_id", "environment")
  WHERE "status" IN ('open', 'rejected', 'expired');
