-- Cross-chain bridges (wormhole, layerzero, axelar): quotes, transfers and their history.
-- docs/crosschain.md explains the protocols, the workflow's states and the ledger entries.

CREATE TABLE "bridge_quotes" (
  "id"                         TEXT PRIMARY KEY,
  "environment"                TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"                    TEXT NOT NULL REFERENCES "users" ("id"),
  "protocol"                   TEXT NOT NULL CHECK ("protocol" IN ('wormhole', 'layerzero', 'axelar')),
  "source_chain"               TEXT NOT NULL,
  "destination_chain"          TEXT NOT NULL,
  -- Token symbol on the source chain and on the destination chain, and the ledger asset of both.
  "token"                      TEXT NOT NULL,
  "destination_token"          TEXT NOT NULL,
  "asset_code"                 TEXT NOT NULL REFERENCES "assets" ("code"),
  "amount"                     NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "fee_amount"                 NUMERIC(38, 18) NOT NULL CHECK ("fee_amount" >= 0),
  "receive_amount"             NUMERIC(38, 18) NOT NULL CHECK ("receive_amount" > 0),
  "exchange_rate"              NUMERIC(38, 18) NOT NULL,
  "estimated_duration_seconds" INTEGER NOT NULL,
  -- How the fee is made up (protocol share, relayer/messaging/gas share, rounding dust).
  "fee_breakdown"              JSONB NOT NULL,
  -- The other protocols' offers for the same route and amount (as shown in the quote).
  "alternatives"               JSONB NOT NULL DEFAULT '[]',
  "expires_at"                 TIMESTAMPTZ(3) NOT NULL,
  "used_at"                    TIMESTAMPTZ(3),
  "created_at"                 TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "bridge_quotes_user_id_environment_created_at_idx" ON "bridge_quotes" ("user_id", "environment", "created_at" DESC);

CREATE TABLE "bridge_transfers" (
  "id"                      TEXT PRIMARY KEY,
  "environment"             TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"                 TEXT NOT NULL REFERENCES "users" ("id"),
  "account_id"              TEXT NOT NULL REFERENCES "accounts" ("id"),
  "quote_id"                TEXT NOT NULL REFERENCES "bridge_quotes" ("id"),
  "protocol"                TEXT NOT NULL,
  "source_chain"            TEXT NOT NULL,
  "destination_chain"       TEXT NOT NULL,
  "token"                   TEXT NOT NULL,
  "destination_token"       TEXT NOT NULL,
  "asset_code"              TEXT NOT NULL REFERENCES "assets" ("code"),
  "amount"                  NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "fee_amount"              NUMERIC(38, 18) NOT NULL CHECK ("fee_amount" >= 0),
  "receive_amount"          NUMERIC(38, 18) NOT NULL CHECK ("receive_amount" > 0),
  "min_receive_amount"      NUMERIC(38, 18) NOT NULL,
  "slippage_tolerance"      NUMERIC(10, 8) NOT NULL,
  "sender_address"          TEXT NOT NULL,
  "recipient_address"       TEXT NOT NULL,
  "status"                  TEXT NOT NULL CHECK ("status" IN ('pending', 'reserved', 'source_submitted', 'source_finalized', 'attested',
                                                              'destination_submitted', 'completed', 'failed')),
  "workflow_id"             TEXT NOT NULL,
  "deadline_at"             TIMESTAMPTZ(3) NOT NULL,
  "estimated_completion_at" TIMESTAMPTZ(3) NOT NULL,
  "reservation_entry_id"    TEXT,
  "settlement_entry_id"     TEXT,
  "source_tx_kind"          TEXT,
  "source_tx_hash"          TEXT,
  "source_block"            BIGINT,
  "attestation"             JSONB,
  "destination_tx_kind"     TEXT,
  "destination_tx_hash"     TEXT,
  "destination_block"       BIGINT,
  "failure_code"            TEXT,
  "failure_reason"          TEXT,
  -- How a failure was made good: 'voided' (reservation released), 'reversed', or null.
  "compensation"            TEXT,
  -- The lock/burn executed on the source chain but the transfer failed after it: the customer is
  -- refunded from the ledger and operations must recover the tokens from the bridge.
  "recovery_required"       BOOLEAN NOT NULL DEFAULT false,
  "created_at"              TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"              TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "completed_at"            TIMESTAMPTZ(3),
  "failed_at"               TIMESTAMPTZ(3)
);
-- A quote is spent at most once, whatever races.
CREATE UNIQUE INDEX "bridge_transfers_quote_id_key" ON "bridge_transfers" ("quote_id");
CREATE INDEX "bridge_transfers_user_id_environment_created_at_idx" ON "bridge_transfers" ("user_id", "environment", "created_at" DESC);
CREATE INDEX "bridge_transfers_account_id_status_idx" ON "bridge_transfers" ("account_id", "status");

-- Every state change of a bridge transfer with its time and detail (its history).
CREATE TABLE "bridge_transfer_events" (
  "id"          TEXT PRIMARY KEY,
  "seq"         BIGSERIAL NOT NULL,
  "transfer_id" TEXT NOT NULL REFERENCES "bridge_transfers" ("id"),
  "status"      TEXT NOT NULL,
  "detail"      JSONB NOT NULL DEFAULT '{}',
  "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX "bridge_transfer_events_transfer_id_seq_idx" ON "bridge_transfer_events" ("transfer_id", "seq");
