-- Chains: crypto balances split into chain books, the tokens bridges and DEXes move, and the
-- sandbox chain's transactions. docs/crosschain.md explains the model.

-- ---------------------------------------------------------------------------------------------
-- Chain books: a customer's holding of an asset is one ledger account per chain. The '' book is
-- the asset's home chain (ethereum for ETH and the ERC-20s, bitcoin for BTC; every fiat asset has
-- only this book), so every existing code path keeps using it unchanged. Any other book carries
-- the chain's id (domain/chains/registry.ts).
-- ---------------------------------------------------------------------------------------------

ALTER TABLE "ledger_accounts" ADD COLUMN "chain" TEXT NOT NULL DEFAULT '';
DROP INDEX "ledger_accounts_account_id_asset_code_key";
CREATE UNIQUE INDEX "ledger_accounts_account_id_asset_code_chain_key" ON "ledger_accounts" ("account_id", "asset_code", "chain");

-- ---------------------------------------------------------------------------------------------
-- Tokens: USDT, DAI, WETH, WBTC (ledger precision = their home-chain decimals).
-- ---------------------------------------------------------------------------------------------

INSERT INTO "assets" ("code", "name", "type", "precision") VALUES
  ('USDT', 'Tether USD',     'crypto', 6),
  ('DAI',  'Dai Stablecoin', 'crypto', 18),
  ('WETH', 'Wrapped Ether',  'crypto', 18),
  ('WBTC', 'Wrapped Bitcoin','crypto', 8);

-- Same snapshot as SandboxRateProvider (domain/rates): wrapped tokens at their underlying's price.
INSERT INTO "exchange_rates" ("base_asset", "quote_asset", "rate", "as_of", "source") VALUES
  ('USDT', 'USD', 1,     '2026-11-21T00:00:00Z', 'sandbox'),
  ('DAI',  'USD', 1,     '2026-11-21T00:00:00Z', 'sandbox'),
  ('WETH', 'USD', 3400,  '2026-11-21T00:00:00Z', 'sandbox'),
  ('WBTC', 'USD', 95000, '2026-11-21T00:00:00Z', 'sandbox');

-- System accounts of the new assets, as the ledger migration opens them for the first ten.
INSERT INTO "ledger_accounts" ("id", "environment", "asset_code", "name", "kind", "code", "normal_balance", "no_overdraft")
SELECT 'la_' || replace(gen_random_uuid()::text, '-', ''), env, a.code,
       initcap(env) || ' ' || a.code || ' ' || replace(k.kind, '_', ' ') || ' #' || s,
       k.kind, k.kind || ':' || s, k.normal, false
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN (VALUES ('USDT'), ('DAI'), ('WETH'), ('WBTC')) a(code)
CROSS JOIN (VALUES ('funding', 'debit'), ('settlement', 'debit'), ('fee_revenue', 'credit'), ('suspense', 'credit')) k(kind, normal)
CROSS JOIN generate_series(0, 31) s;

-- Transfers between accounts: 0.1 %, capped at about 5 USD, as for the other assets.
INSERT INTO "fee_schedules" ("id", "operation", "asset_code", "rate_bps", "max_fee") VALUES
  ('fee_transfer_usdt', 'transfer', 'USDT', 10, 5),
  ('fee_transfer_dai',  'transfer', 'DAI',  10, 5),
  ('fee_transfer_weth', 'transfer', 'WETH', 10, 0.0015),
  ('fee_transfer_wbtc', 'transfer', 'WBTC', 10, 0.00005);

-- Customer view of a ledger account, now with its chain book ('' = the asset's home book).
CREATE OR REPLACE FUNCTION ledger_balance_json(p_la ledger_accounts) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_prec integer;
  v_credit boolean := p_la.normal_balance = 'credit';
BEGIN
  SELECT precision INTO v_prec FROM assets WHERE code = p_la.asset_code;
  RETURN jsonb_build_object(
    'account_id', p_la.account_id, 'ledger_account_id', p_la.id, 'asset_code', p_la.asset_code, 'chain', p_la.chain,
    'available_balance', round(CASE WHEN v_credit THEN p_la.credits_posted - p_la.debits_posted - p_la.debits_pending
                                    ELSE p_la.debits_posted - p_la.credits_posted - p_la.credits_pending END, v_prec)::text,
    'reserved_balance', round(CASE WHEN v_credit THEN p_la.debits_pending ELSE p_la.credits_pending END, v_prec)::text,
    'total_balance', round(CASE WHEN v_credit THEN p_la.credits_posted - p_la.debits_posted
                                ELSE p_la.debits_posted - p_la.credits_posted END, v_prec)::text);
END $$;

-- ---------------------------------------------------------------------------------------------
-- Sandbox chain: every transaction the sandbox adapter accepted. Status, block and confirmations
-- are not stored: they follow from the caller's clock and the chain's block time
-- (domain/chains/sandbox.ts), so they accrue as (workflow) time passes.
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "chain_transactions" (
  "id"              TEXT PRIMARY KEY,
  "chain"           TEXT NOT NULL,
  -- keccak256 (EVM), double sha256 (bitcoin) or a base58 64-byte signature (solana) of the content.
  "hash"            TEXT NOT NULL,
  -- The caller's key (workflow id + step): the same key is the same transaction.
  "idempotency_key" TEXT NOT NULL,
  "kind"            TEXT NOT NULL CHECK ("kind" IN ('transfer', 'bridge_lock', 'bridge_burn', 'bridge_release', 'bridge_mint', 'swap', 'flash_loan')),
  "from_address"    TEXT NOT NULL,
  "to_address"      TEXT NOT NULL,
  "token"           TEXT NOT NULL,
  "amount"          NUMERIC(38, 18) NOT NULL CHECK ("amount" >= 0),
  "data"            JSONB NOT NULL DEFAULT '{}',
  -- What the sandbox does with it: 'ok', 'revert' (included, then fails) or 'drop' (never included).
  "outcome"         TEXT NOT NULL CHECK ("outcome" IN ('ok', 'revert', 'drop')),
  "submitted_at"    TIMESTAMPTZ(3) NOT NULL,
  "submit_block"    BIGINT NOT NULL,
  -- The block that includes it (the next one after submission); null when dropped.
  "inclusion_block" BIGINT,
  "gas_price_gwei"  NUMERIC(38, 18) NOT NULL,
  "gas_used"        BIGINT NOT NULL,
  "created_at"      TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "chain_transactions_idempotency_key_key" ON "chain_transactions" ("idempotency_key");
CREATE UNIQUE INDEX "chain_transactions_chain_hash_key" ON "chain_transactions" ("chain", "hash");
