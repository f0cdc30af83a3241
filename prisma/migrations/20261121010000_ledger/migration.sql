-- Ledger: assets, exchange rates, customer accounts, double-entry ledger (accounts, entries, lines),
-- transactional outbox, and the plpgsql posting functions. docs/ledger.md explains the model.

-- ---------------------------------------------------------------------------------------------
-- Assets and rates
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "assets" (
  "code"       TEXT PRIMARY KEY,
  "name"       TEXT NOT NULL,
  "type"       TEXT NOT NULL CHECK ("type" IN ('fiat', 'crypto', 'commodity', 'basket')),
  -- Number of decimal places an amount of this asset may carry; ledger columns hold 18.
  "precision"  INTEGER NOT NULL CHECK ("precision" BETWEEN 0 AND 18),
  "is_active"  BOOLEAN NOT NULL DEFAULT true,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

INSERT INTO "assets" ("code", "name", "type", "precision") VALUES
  ('USD',  'US Dollar',             'fiat',      2),
  ('EUR',  'Euro',                  'fiat',      2),
  ('GBP',  'Pound Sterling',        'fiat',      2),
  ('CHF',  'Swiss Franc',           'fiat',      2),
  ('JPY',  'Japanese Yen',          'fiat',      0),
  ('XAU',  'Gold (troy ounce)',     'commodity', 4),
  ('BTC',  'Bitcoin',               'crypto',    8),
  ('ETH',  'Ether',                 'crypto',    18),
  ('USDC', 'USD Coin',              'crypto',    6),
  ('GCU',  'Global Currency Unit',  'basket',    4);

CREATE TABLE "exchange_rates" (
  "id"          BIGSERIAL PRIMARY KEY,
  "base_asset"  TEXT NOT NULL REFERENCES "assets" ("code"),
  "quote_asset" TEXT NOT NULL DEFAULT 'USD' REFERENCES "assets" ("code"),
  "rate"        NUMERIC(38, 18) NOT NULL CHECK ("rate" > 0),
  "as_of"       TIMESTAMPTZ(3) NOT NULL,
  "source"      TEXT NOT NULL,
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "exchange_rates_base_asset_quote_asset_as_of_idx" ON "exchange_rates" ("base_asset", "quote_asset", "as_of" DESC);

-- Same snapshot as SandboxRateProvider (domain/rates), so balances have a USD value from the start.
INSERT INTO "exchange_rates" ("base_asset", "quote_asset", "rate", "as_of", "source") VALUES
  ('USD',  'USD', 1,          '2026-11-21T00:00:00Z', 'sandbox'),
  ('EUR',  'USD', 1.08,       '2026-11-21T00:00:00Z', 'sandbox'),
  ('GBP',  'USD', 1.27,       '2026-11-21T00:00:00Z', 'sandbox'),
  ('CHF',  'USD', 1.13,       '2026-11-21T00:00:00Z', 'sandbox'),
  ('JPY',  'USD', 0.0067,     '2026-11-21T00:00:00Z', 'sandbox'),
  ('XAU',  'USD', 2650,       '2026-11-21T00:00:00Z', 'sandbox'),
  ('BTC',  'USD', 95000,      '2026-11-21T00:00:00Z', 'sandbox'),
  ('ETH',  'USD', 3400,       '2026-11-21T00:00:00Z', 'sandbox'),
  ('USDC', 'USD', 1,          '2026-11-21T00:00:00Z', 'sandbox'),
  ('GCU',  'USD', 1.10,       '2026-11-21T00:00:00Z', 'sandbox');

-- ---------------------------------------------------------------------------------------------
-- Customer accounts
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "accounts" (
  "id"          TEXT PRIMARY KEY,
  "user_id"     TEXT NOT NULL REFERENCES "users" ("id"),
  "environment" TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "name"        TEXT NOT NULL,
  "type"        TEXT NOT NULL CHECK ("type" IN ('personal', 'business', 'savings')),
  "status"      TEXT NOT NULL DEFAULT 'active' CHECK ("status" IN ('active', 'frozen', 'closed')),
  "metadata"    JSONB NOT NULL DEFAULT '{}',
  "created_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"  TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "accounts_user_id_environment_created_at_idx" ON "accounts" ("user_id", "environment", "created_at");

-- ---------------------------------------------------------------------------------------------
-- Ledger accounts
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "ledger_accounts" (
  "id"                  TEXT PRIMARY KEY,
  "environment"         TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "asset_code"          TEXT NOT NULL REFERENCES "assets" ("code"),
  "name"                TEXT NOT NULL,
  -- customer: one per customer account and asset; the system kinds are sharded ("funding:3");
  -- internal: named accounts other modules open (code chosen by them).
  "kind"                TEXT NOT NULL CHECK ("kind" IN ('customer', 'funding', 'fee_revenue', 'suspense', 'settlement', 'internal')),
  "code"                TEXT,
  "normal_balance"      TEXT NOT NULL CHECK ("normal_balance" IN ('debit', 'credit')),
  "no_overdraft"        BOOLEAN NOT NULL,
  "status"              TEXT NOT NULL DEFAULT 'active' CHECK ("status" IN ('active', 'frozen', 'closed')),
  "account_id"          TEXT REFERENCES "accounts" ("id"),
  "user_id"             TEXT,
  "debits_pending"      NUMERIC(38, 18) NOT NULL DEFAULT 0,
  "debits_posted"       NUMERIC(38, 18) NOT NULL DEFAULT 0,
  "credits_pending"     NUMERIC(38, 18) NOT NULL DEFAULT 0,
  "credits_posted"      NUMERIC(38, 18) NOT NULL DEFAULT 0,
  -- How far below zero a no-overdraft account may stand. Only a forced reversal raises it (to the
  -- exact shortfall, recorded on the entry); every other posting can only shrink it towards the
  -- remaining deficit, so money received later repays it and cannot be spent twice.
  "overdraft_allowance" NUMERIC(38, 18) NOT NULL DEFAULT 0,
  "created_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at"          TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  CONSTRAINT "ledger_accounts_totals_nonnegative" CHECK (
    "debits_pending" >= 0 AND "debits_posted" >= 0 AND "credits_pending" >= 0 AND "credits_posted" >= 0
    AND "overdraft_allowance" >= 0),
  -- The database, not the application, makes overdraft impossible: whatever writes the totals,
  -- outflows (posted and reserved) never exceed posted inflows plus the recorded allowance.
  CONSTRAINT "ledger_accounts_no_overdraft" CHECK (
    NOT "no_overdraft"
    OR ("normal_balance" = 'credit' AND "debits_posted" + "debits_pending" <= "credits_posted" + "overdraft_allowance")
    OR ("normal_balance" = 'debit' AND "credits_posted" + "credits_pending" <= "debits_posted" + "overdraft_allowance")),
  CONSTRAINT "ledger_accounts_customer_shape" CHECK (("kind" = 'customer') = ("account_id" IS NOT NULL))
);
CREATE UNIQUE INDEX "ledger_accounts_account_id_asset_code_key" ON "ledger_accounts" ("account_id", "asset_code");
CREATE UNIQUE INDEX "ledger_accounts_environment_asset_code_code_key" ON "ledger_accounts" ("environment", "asset_code", "code");
CREATE INDEX "ledger_accounts_environment_kind_idx" ON "ledger_accounts" ("environment", "kind");

-- System accounts: every environment x asset x kind, in 32 shards so hot accounts do not serialise
-- all postings on one row lock. Funding/settlement hold the platform's side of customer money
-- (debit-normal), fee revenue and suspense are credit-normal. None is balance-checked.
INSERT INTO "ledger_accounts" ("id", "environment", "asset_code", "name", "kind", "code", "normal_balance", "no_overdraft")
SELECT 'la_' || replace(gen_random_uuid()::text, '-', ''), env, a.code,
       initcap(env) || ' ' || a.code || ' ' || replace(k.kind, '_', ' ') || ' #' || s,
       k.kind, k.kind || ':' || s, k.normal, false
FROM (VALUES ('sandbox'), ('production')) e(env)
CROSS JOIN "assets" a
CROSS JOIN (VALUES ('funding', 'debit'), ('settlement', 'debit'), ('fee_revenue', 'credit'), ('suspense', 'credit')) k(kind, normal)
CROSS JOIN generate_series(0, 31) s;

-- ---------------------------------------------------------------------------------------------
-- Journal entries and lines
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "journal_entries" (
  "id"                 TEXT PRIMARY KEY,
  "environment"        TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "idempotency_key"    TEXT NOT NULL,
  -- md5 of the content that must match on replay (type, pending, reference, reversed entry, lines).
  "request_hash"       TEXT NOT NULL,
  "type"               TEXT NOT NULL,
  "status"             TEXT NOT NULL CHECK ("status" IN ('pending', 'posted', 'voided')),
  "two_phase"          BOOLEAN NOT NULL,
  "description"        TEXT,
  "reference"          TEXT,
  "metadata"           JSONB NOT NULL DEFAULT '{}',
  "user_id"            TEXT,
  "reverses_entry_id"  TEXT REFERENCES "journal_entries" ("id"),
  -- [{account_id, amount}] by which a forced reversal took no-overdraft accounts below zero.
  "forced_overdraft"   JSONB,
  "pending_expires_at" TIMESTAMPTZ(3),
  -- Idempotency key of the post or void that resolved a two-phase entry (null: expired).
  "resolution_key"     TEXT,
  "void_reason"        TEXT,
  "created_at"         TIMESTAMPTZ(3) NOT NULL,
  "posted_at"          TIMESTAMPTZ(3),
  "voided_at"          TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "journal_entries_environment_idempotency_key_key" ON "journal_entries" ("environment", "idempotency_key");
-- At most one reversal per entry, enforced by the database.
CREATE UNIQUE INDEX "journal_entries_reverses_entry_id_key" ON "journal_entries" ("reverses_entry_id");
CREATE INDEX "journal_entries_status_pending_expires_at_idx" ON "journal_entries" ("status", "pending_expires_at");
CREATE INDEX "journal_entries_environment_type_created_at_idx" ON "journal_entries" ("environment", "type", "created_at");

-- One row per posting line; a line on a customer ledger account is also a customer-visible
-- transaction (id txn_...), so account/user/type are copied here for indexed listing.
CREATE TABLE "ledger_lines" (
  "id"                TEXT PRIMARY KEY,
  -- Taken while the account rows are locked: orders the lines of one account as they were applied
  -- (a pending line takes a new one when it is posted, since that is when it hits posted balances).
  "seq"               BIGSERIAL NOT NULL,
  "entry_id"          TEXT NOT NULL REFERENCES "journal_entries" ("id"),
  "line_no"           INTEGER NOT NULL,
  "environment"       TEXT NOT NULL,
  "ledger_account_id" TEXT NOT NULL REFERENCES "ledger_accounts" ("id"),
  -- Copied from the ledger account (no FK needed: the account's asset never changes).
  "asset_code"        TEXT NOT NULL,
  "direction"         TEXT NOT NULL CHECK ("direction" IN ('debit', 'credit')),
  "amount"            NUMERIC(38, 18) NOT NULL CHECK ("amount" > 0),
  "status"            TEXT NOT NULL CHECK ("status" IN ('pending', 'posted', 'voided')),
  -- The account's total (normal-side) balance right after this line was posted; null until then.
  "balance_after"     NUMERIC(38, 18),
  "account_id"        TEXT,
  "user_id"           TEXT,
  "txn_type"          TEXT CHECK ("txn_type" IN ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal')),
  "created_at"        TIMESTAMPTZ(3) NOT NULL,
  "completed_at"      TIMESTAMPTZ(3)
);
CREATE UNIQUE INDEX "ledger_lines_seq_key" ON "ledger_lines" ("seq");
CREATE UNIQUE INDEX "ledger_lines_entry_id_line_no_key" ON "ledger_lines" ("entry_id", "line_no");
CREATE INDEX "ledger_lines_account_id_created_at_seq_idx" ON "ledger_lines" ("account_id", "created_at" DESC, "seq" DESC);
CREATE INDEX "ledger_lines_user_id_environment_created_at_seq_idx" ON "ledger_lines" ("user_id", "environment", "created_at" DESC, "seq" DESC);
CREATE INDEX "ledger_lines_ledger_account_id_seq_idx" ON "ledger_lines" ("ledger_account_id", "seq");
CREATE INDEX "ledger_lines_environment_completed_at_idx" ON "ledger_lines" ("environment", "completed_at");

-- ---------------------------------------------------------------------------------------------
-- Transactional outbox
-- ---------------------------------------------------------------------------------------------

CREATE TABLE "outbox_events" (
  "id"             TEXT PRIMARY KEY,
  "type"           TEXT NOT NULL,
  "environment"    TEXT NOT NULL CHECK ("environment" IN ('sandbox', 'production')),
  "user_id"        TEXT,
  "aggregate_type" TEXT NOT NULL,
  "aggregate_id"   TEXT NOT NULL,
  "data"           JSONB NOT NULL,
  "occurred_at"    TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "published_at"   TIMESTAMPTZ(3),
  "attempts"       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX "outbox_events_published_at_occurred_at_idx" ON "outbox_events" ("published_at", "occurred_at");
CREATE INDEX "outbox_events_aggregate_type_aggregate_id_idx" ON "outbox_events" ("aggregate_type", "aggregate_id");

-- ---------------------------------------------------------------------------------------------
-- Immutability: posted history is never rewritten. The only change allowed is a pending entry
-- (and its lines) moving once to posted or voided; corrections are new reversing entries.
-- ---------------------------------------------------------------------------------------------

CREATE FUNCTION ledger__guard_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status IN ('posted', 'voided')
     AND (to_jsonb(NEW) - ARRAY['status', 'posted_at', 'voided_at', 'void_reason', 'resolution_key'])
       = (to_jsonb(OLD) - ARRAY['status', 'posted_at', 'voided_at', 'void_reason', 'resolution_key']) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'LGR01', MESSAGE = 'IMMUTABLE: journal entries cannot be ' || lower(TG_OP) || 'd';
END $$;

CREATE TRIGGER "journal_entries_immutable" BEFORE UPDATE OR DELETE ON "journal_entries"
  FOR EACH ROW EXECUTE FUNCTION ledger__guard_entries();
CREATE TRIGGER "journal_entries_no_truncate" BEFORE TRUNCATE ON "journal_entries"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger__guard_entries();

CREATE FUNCTION ledger__guard_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status IN ('posted', 'voided')
     AND (to_jsonb(NEW) - ARRAY['status', 'balance_after', 'completed_at', 'seq'])
       = (to_jsonb(OLD) - ARRAY['status', 'balance_after', 'completed_at', 'seq']) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'LGR01', MESSAGE = 'IMMUTABLE: ledger lines cannot be ' || lower(TG_OP) || 'd';
END $$;

CREATE TRIGGER "ledger_lines_immutable" BEFORE UPDATE OR DELETE ON "ledger_lines"
  FOR EACH ROW EXECUTE FUNCTION ledger__guard_lines();
CREATE TRIGGER "ledger_lines_no_truncate" BEFORE TRUNCATE ON "ledger_lines"
  FOR EACH STATEMENT EXECUTE FUNCTION ledger__guard_lines();

-- ---------------------------------------------------------------------------------------------
-- Helpers. Errors are SQLSTATE LGR01 with a message "CODE: text" that domain/ledger maps to
-- LedgerError; DETAIL carries JSON.
-- ---------------------------------------------------------------------------------------------

CREATE FUNCTION ledger__err(p_code text, p_message text, p_detail jsonb DEFAULT '{}') RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'LGR01', MESSAGE = p_code || ': ' || p_message, DETAIL = p_detail::text;
END $$;

CREATE FUNCTION ledger__new_id(p_prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT p_prefix || '_' || replace(gen_random_uuid()::text, '-', '')
$$;

-- Same rules as parseAmount in domain/money/amount.ts.
CREATE FUNCTION ledger__amount(p_text text, p_precision integer) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  v numeric;
BEGIN
  IF p_text IS NULL THEN PERFORM ledger__err('INVALID_AMOUNT', 'amount is required'); END IF;
  IF p_text ~ '^-[0-9]+(\.[0-9]+)?$' THEN PERFORM ledger__err('AMOUNT_NOT_POSITIVE', 'amount must be positive: ' || p_text); END IF;
  IF p_text !~ '^[0-9]+(\.[0-9]+)?$' THEN PERFORM ledger__err('INVALID_AMOUNT', 'malformed amount: ' || left(p_text, 60)); END IF;
  IF length(ltrim(split_part(p_text, '.', 1), '0')) > 20 THEN PERFORM ledger__err('INVALID_AMOUNT', 'amount too large'); END IF;
  IF length(split_part(p_text, '.', 2)) > p_precision THEN
    PERFORM ledger__err('AMOUNT_PRECISION', 'amount ' || p_text || ' has more than ' || p_precision || ' decimals');
  END IF;
  v := p_text::numeric;
  IF v = 0 THEN PERFORM ledger__err('AMOUNT_NOT_POSITIVE', 'amount must be positive'); END IF;
  RETURN v;
END $$;

-- Outflows beyond inflows of an account, on its own side of the ledger.
CREATE FUNCTION ledger__deficit(p_normal text, p_dp numeric, p_dpend numeric, p_cp numeric, p_cpend numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_normal = 'credit' THEN p_dp + p_dpend - p_cp ELSE p_cp + p_cpend - p_dp END
$$;

-- See overdraft_allowance: raised only by force, otherwise shrinks to the remaining deficit.
-- (plpgsql, not SQL: a SQL function that cannot be inlined is planned again on every call.)
CREATE FUNCTION ledger__allowance(p_no_overdraft boolean, p_allowance numeric, p_deficit numeric, p_force boolean) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF NOT p_no_overdraft THEN RETURN 0; END IF;
  IF p_force AND p_deficit > p_allowance THEN RETURN p_deficit; END IF;
  RETURN LEAST(p_allowance, GREATEST(p_deficit, 0));
END $$;

-- Customer-visible transaction type of a line (docs/ledger.md).
CREATE FUNCTION ledger__txn_type(p_entry_type text, p_direction text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_entry_type = 'reversal' THEN 'reversal'
    WHEN p_entry_type = 'fee' THEN 'fee'
    WHEN p_entry_type = 'deposit' THEN CASE WHEN p_direction = 'credit' THEN 'deposit' ELSE 'withdrawal' END
    WHEN p_entry_type = 'withdrawal' THEN CASE WHEN p_direction = 'debit' THEN 'withdrawal' ELSE 'deposit' END
    ELSE CASE WHEN p_direction = 'credit' THEN 'transfer_in' ELSE 'transfer_out' END
  END
$$;

CREATE FUNCTION ledger__txn_status(p_line_status text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_line_status WHEN 'pending' THEN 'pending' WHEN 'posted' THEN 'completed' ELSE 'failed' END
$$;

-- The customer-visible transaction of a line (event payloads; domain/ledger/transactions.ts
-- builds the same shape for queries).
CREATE FUNCTION ledger_transaction_json(p_line ledger_lines, p_reference text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_prec integer;
BEGIN
  SELECT precision INTO v_prec FROM assets WHERE code = p_line.asset_code;
  RETURN jsonb_build_object(
    'id', p_line.id, 'account_id', p_line.account_id, 'ledger_account_id', p_line.ledger_account_id,
    'entry_id', p_line.entry_id, 'type', p_line.txn_type,
    'amount', round(p_line.amount, v_prec)::text, 'asset_code', p_line.asset_code,
    'status', ledger__txn_status(p_line.status), 'reference', p_reference,
    'created_at', p_line.created_at, 'completed_at', p_line.completed_at,
    'balance_after', round(p_line.balance_after, v_prec)::text);
END $$;

-- Customer view of a ledger account: available = posted in - posted out - reserved out;
-- reserved = pending out; total = posted in - posted out (on the account's normal side).
CREATE FUNCTION ledger_balance_json(p_la ledger_accounts) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_prec integer;
  v_credit boolean := p_la.normal_balance = 'credit';
BEGIN
  SELECT precision INTO v_prec FROM assets WHERE code = p_la.asset_code;
  RETURN jsonb_build_object(
    'account_id', p_la.account_id, 'ledger_account_id', p_la.id, 'asset_code', p_la.asset_code,
    'available_balance', round(CASE WHEN v_credit THEN p_la.credits_posted - p_la.debits_posted - p_la.debits_pending
                                    ELSE p_la.debits_posted - p_la.credits_posted - p_la.credits_pending END, v_prec)::text,
    'reserved_balance', round(CASE WHEN v_credit THEN p_la.debits_pending ELSE p_la.credits_pending END, v_prec)::text,
    'total_balance', round(CASE WHEN v_credit THEN p_la.credits_posted - p_la.debits_posted
                                ELSE p_la.debits_posted - p_la.credits_posted END, v_prec)::text);
END $$;

CREATE FUNCTION ledger_entry_json(p_id text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT jsonb_build_object(
    'id', e.id, 'environment', e.environment, 'idempotency_key', e.idempotency_key, 'type', e.type,
    'status', e.status, 'two_phase', e.two_phase, 'description', e.description, 'reference', e.reference,
    'metadata', e.metadata, 'user_id', e.user_id, 'reverses_entry_id', e.reverses_entry_id,
    'reversed_by_entry_id', (SELECT r.id FROM journal_entries r WHERE r.reverses_entry_id = e.id),
    'forced_overdraft', e.forced_overdraft, 'pending_expires_at', e.pending_expires_at,
    'void_reason', e.void_reason, 'created_at', e.created_at, 'posted_at', e.posted_at, 'voided_at', e.voided_at,
    'lines', (SELECT jsonb_agg(jsonb_build_object(
        'id', l.id, 'account_id', l.ledger_account_id, 'asset_code', l.asset_code, 'direction', l.direction,
        'amount', round(l.amount, a.precision)::text, 'balance_after', round(l.balance_after, a.precision)::text,
        'status', l.status, 'customer_account_id', l.account_id, 'transaction_type', l.txn_type) ORDER BY l.line_no)
      FROM ledger_lines l JOIN assets a ON a.code = l.asset_code WHERE l.entry_id = e.id))
  FROM journal_entries e WHERE e.id = p_id);
END $$;

CREATE FUNCTION ledger__replay(p_found journal_entries, p_hash text) RETURNS jsonb
LANGUAGE plpgsql AS $$
BEGIN
  IF p_found.request_hash <> p_hash THEN
    PERFORM ledger__err('IDEMPOTENCY_CONFLICT', 'idempotency key ' || p_found.idempotency_key || ' was used for different content',
      jsonb_build_object('entry_id', p_found.id));
  END IF;
  RETURN ledger_entry_json(p_found.id);
END $$;

-- ---------------------------------------------------------------------------------------------
-- Posting: one call validates, locks the accounts (sorted, one statement), checks balance and
-- funds, writes header + lines (with balance_after) + totals + outbox events, and returns the
-- entry as JSON. Runs in the caller's transaction, or its own when called in autocommit.
-- ---------------------------------------------------------------------------------------------

CREATE FUNCTION ledger__post(p jsonb, p_reverses text, p_force boolean) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v_env      text := p->>'environment';
  v_key      text := p->>'idempotency_key';
  v_type     text := p->>'type';
  v_pending  boolean := coalesce((p->>'pending')::boolean, false);
  v_timeout  numeric := (p->>'pending_timeout_seconds')::numeric;
  v_hash     text;
  v_id       text;
  v_now      timestamptz;
  v_found    journal_entries%ROWTYPE;
  v_la       ledger_accounts%ROWTYPE;
  v_line     jsonb;
  v_prec     integer;
  v_tt       text;
  v_accs     text[] := '{}';
  v_dirs     text[] := '{}';
  v_amts     numeric[] := '{}';
  v_assets   text[] := '{}';
  v_tts      text[] := '{}';
  v_bad      text;
  v_bad_acc  text;
  v_forced   jsonb;
BEGIN
  IF v_env IS NULL OR v_env NOT IN ('sandbox', 'production') THEN
    PERFORM ledger__err('INVALID_ENTRY', 'environment must be sandbox or production');
  END IF;
  IF coalesce(v_key, '') = '' THEN PERFORM ledger__err('INVALID_ENTRY', 'idempotency key is required'); END IF;
  IF coalesce(v_type, '') = '' THEN PERFORM ledger__err('INVALID_ENTRY', 'entry type is required'); END IF;
  IF jsonb_typeof(p->'lines') IS DISTINCT FROM 'array' OR jsonb_array_length(p->'lines') < 2 THEN
    PERFORM ledger__err('INVALID_ENTRY', 'an entry needs at least two lines');
  END IF;
  IF v_pending AND v_timeout IS NOT NULL AND v_timeout <= 0 THEN
    PERFORM ledger__err('INVALID_ENTRY', 'pending timeout must be positive');
  END IF;

  -- Content that must match when the key is replayed (amounts compared by value).
  v_hash := md5(jsonb_build_array(v_type, v_pending, p->>'reference', p_reverses,
    (SELECT jsonb_agg(jsonb_build_array(l->>'account_id', l->>'direction',
        CASE WHEN l->>'amount' ~ '^[0-9]{1,40}(\.[0-9]{1,40})?$' THEN trim_scale((l->>'amount')::numeric)::text ELSE l->>'amount' END,
        l->>'transaction_type') ORDER BY n)
     FROM jsonb_array_elements(p->'lines') WITH ORDINALITY t(l, n)))::text);

  -- Replays are the common retry path: answer them before taking any lock.
  SELECT * INTO v_found FROM journal_entries WHERE environment = v_env AND idempotency_key = v_key;
  IF FOUND THEN RETURN ledger__replay(v_found, v_hash); END IF;

  -- Everything that does not depend on balances or status is checked before taking locks, so
  -- the locks are held only for the part that needs them. (Asset, environment and kind of a
  -- ledger account never change.)
  FOR v_line IN SELECT l FROM jsonb_array_elements(p->'lines') l LOOP
    IF jsonb_typeof(v_line) <> 'object' THEN PERFORM ledger__err('INVALID_ENTRY', 'a line must be an object'); END IF;
    SELECT * INTO v_la FROM ledger_accounts WHERE id = v_line->>'account_id';
    IF NOT FOUND THEN
      PERFORM ledger__err('ACCOUNT_NOT_FOUND', 'ledger account ' || coalesce(v_line->>'account_id', 'null') || ' not found');
    END IF;
    IF v_la.environment <> v_env THEN
      PERFORM ledger__err('ENVIRONMENT_MISMATCH', 'ledger account ' || v_la.id || ' belongs to ' || v_la.environment);
    END IF;
    IF coalesce(v_line->>'direction', '') NOT IN ('debit', 'credit') THEN
      PERFORM ledger__err('INVALID_ENTRY', 'direction must be debit or credit');
    END IF;
    IF v_line ? 'asset_code' AND v_line->>'asset_code' IS DISTINCT FROM v_la.asset_code THEN
      PERFORM ledger__err('ASSET_MISMATCH', 'ledger account ' || v_la.id || ' holds ' || v_la.asset_code || ', not ' || coalesce(v_line->>'asset_code', 'null'));
    END IF;
    IF jsonb_typeof(v_line->'amount') IS DISTINCT FROM 'string' THEN
      PERFORM ledger__err('INVALID_AMOUNT', 'amount must be a decimal string');
    END IF;
    SELECT precision INTO v_prec FROM assets WHERE code = v_la.asset_code;
    v_tt := v_line->>'transaction_type';
    IF v_tt IS NOT NULL AND v_tt NOT IN ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal') THEN
      PERFORM ledger__err('INVALID_ENTRY', 'unknown transaction type ' || v_tt);
    END IF;
    v_accs   := v_accs || v_la.id;
    v_dirs   := v_dirs || (v_line->>'direction');
    v_amts   := v_amts || ledger__amount(v_line->>'amount', v_prec);
    v_assets := v_assets || v_la.asset_code;
    v_tts    := v_tts || CASE WHEN v_la.kind = 'customer' THEN coalesce(v_tt, ledger__txn_type(v_type, v_line->>'direction')) END;
  END LOOP;

  SELECT asset INTO v_bad FROM unnest(v_assets, v_dirs, v_amts) t(asset, dir, amt)
   GROUP BY asset HAVING sum(CASE WHEN dir = 'debit' THEN amt ELSE -amt END) <> 0 LIMIT 1;
  IF FOUND THEN
    PERFORM ledger__err('UNBALANCED', 'debits and credits of ' || v_bad || ' differ', jsonb_build_object('asset_code', v_bad));
  END IF;

  -- All row locks at once, in id order, so concurrent postings cannot deadlock.
  PERFORM 1 FROM ledger_accounts
   WHERE id = ANY (v_accs)
   ORDER BY id FOR UPDATE;
  -- Taken under the locks, so created_at follows the order in which lines hit each account.
  v_now := clock_timestamp();
  -- A concurrent reversal of the same entry holds the same accounts, so it has committed by now.
  IF p_reverses IS NOT NULL AND EXISTS (SELECT 1 FROM journal_entries WHERE reverses_entry_id = p_reverses) THEN
    SELECT * INTO v_found FROM journal_entries WHERE environment = v_env AND idempotency_key = v_key;
    IF FOUND THEN RETURN ledger__replay(v_found, v_hash); END IF;
    PERFORM ledger__err('ALREADY_REVERSED', 'entry ' || p_reverses || ' is already reversed');
  END IF;

  -- Status under the lock, so a concurrent freeze or close is either fully before or after us.
  -- Frozen stops new debits; a forced reversal (claw-back) is the one exception.
  SELECT t.acc, la.status INTO v_bad_acc, v_bad
  FROM unnest(v_accs, v_dirs) WITH ORDINALITY t(acc, dir, n) JOIN ledger_accounts la ON la.id = t.acc
  WHERE la.id = ANY (v_accs) AND (la.status = 'closed' OR (la.status = 'frozen' AND t.dir = 'debit' AND NOT p_force))
  ORDER BY t.n LIMIT 1;
  IF FOUND THEN
    PERFORM ledger__err(CASE WHEN v_bad = 'closed' THEN 'ACCOUNT_CLOSED' ELSE 'ACCOUNT_FROZEN' END,
      'ledger account ' || v_bad_acc || ' is ' || v_bad, jsonb_build_object('account_id', v_bad_acc));
  END IF;

  -- Funds: the CHECK constraint would refuse the update anyway; checking first gives a clean error
  -- (no exception block needed) and tells a forced reversal how far below zero it goes.
  SELECT jsonb_agg(jsonb_build_object('account_id', x.id, 'amount', round(x.deficit - x.overdraft_allowance, x.precision)::text) ORDER BY x.id)
    INTO v_forced
  FROM (
    SELECT la.id, la.overdraft_allowance, a.precision,
           ledger__deficit(la.normal_balance,
             la.debits_posted + CASE WHEN v_pending THEN 0 ELSE d.dr END, la.debits_pending + CASE WHEN v_pending THEN d.dr ELSE 0 END,
             la.credits_posted + CASE WHEN v_pending THEN 0 ELSE d.cr END, la.credits_pending + CASE WHEN v_pending THEN d.cr ELSE 0 END) AS deficit
    FROM (SELECT acc, sum(CASE WHEN dir = 'debit' THEN amt ELSE 0 END) dr, sum(CASE WHEN dir = 'credit' THEN amt ELSE 0 END) cr
          FROM unnest(v_accs, v_dirs, v_amts) t(acc, dir, amt) GROUP BY acc) d
    JOIN ledger_accounts la ON la.id = d.acc
    JOIN assets a ON a.code = la.asset_code
    WHERE la.no_overdraft AND la.id = ANY (v_accs)
  ) x WHERE x.deficit > x.overdraft_allowance;
  IF v_forced IS NOT NULL AND NOT p_force THEN
    PERFORM ledger__err('INSUFFICIENT_FUNDS', 'insufficient funds in ledger account ' || (v_forced->0->>'account_id'),
      jsonb_build_object('shortfall', v_forced));
  END IF;

  -- A caller may choose the id (so rows written before the posting can reference it).
  v_id := coalesce(nullif(p->>'entry_id', ''), ledger__new_id('je'));
  INSERT INTO journal_entries (id, environment, idempotency_key, request_hash, type, status, two_phase, description,
                               reference, metadata, user_id, reverses_entry_id, forced_overdraft, pending_expires_at, created_at, posted_at)
  VALUES (v_id, v_env, v_key, v_hash, v_type, CASE WHEN v_pending THEN 'pending' ELSE 'posted' END, v_pending,
          p->>'description', p->>'reference', coalesce(p->'metadata', '{}'), nullif(p->>'user_id', ''), p_reverses, v_forced,
          CASE WHEN v_pending AND v_timeout IS NOT NULL THEN v_now + make_interval(secs => v_timeout) END,
          v_now, CASE WHEN v_pending THEN NULL ELSE v_now END)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    -- A concurrent call with the same key (or reversing the same entry) committed first.
    SELECT * INTO v_found FROM journal_entries WHERE environment = v_env AND idempotency_key = v_key;
    IF FOUND THEN RETURN ledger__replay(v_found, v_hash); END IF;
    PERFORM ledger__err('ALREADY_REVERSED', 'entry ' || p_reverses || ' is already reversed');
  END IF;

  WITH l AS (
    SELECT acc, dir, amt, tt, n FROM unnest(v_accs, v_dirs, v_amts, v_tts) WITH ORDINALITY t(acc, dir, amt, tt, n)
  ), d AS (
    SELECT acc, sum(CASE WHEN dir = 'debit' THEN amt ELSE 0 END) dr, sum(CASE WHEN dir = 'credit' THEN amt ELSE 0 END) cr
    FROM l GROUP BY acc
  ), u AS (
    UPDATE ledger_accounts la SET
      debits_pending  = la.debits_pending  + CASE WHEN v_pending THEN d.dr ELSE 0 END,
      credits_pending = la.credits_pending + CASE WHEN v_pending THEN d.cr ELSE 0 END,
      debits_posted   = la.debits_posted   + CASE WHEN v_pending THEN 0 ELSE d.dr END,
      credits_posted  = la.credits_posted  + CASE WHEN v_pending THEN 0 ELSE d.cr END,
      overdraft_allowance = ledger__allowance(la.no_overdraft, la.overdraft_allowance,
        ledger__deficit(la.normal_balance,
          la.debits_posted + CASE WHEN v_pending THEN 0 ELSE d.dr END, la.debits_pending + CASE WHEN v_pending THEN d.dr ELSE 0 END,
          la.credits_posted + CASE WHEN v_pending THEN 0 ELSE d.cr END, la.credits_pending + CASE WHEN v_pending THEN d.cr ELSE 0 END),
        p_force),
      updated_at = v_now
    -- id = ANY keeps the plan on the primary key whatever the planner guesses about d.
    FROM d WHERE la.id = d.acc AND la.id = ANY (v_accs)
    RETURNING la.id, la.normal_balance, la.asset_code, la.account_id, la.user_id,
              CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted ELSE la.debits_posted - la.credits_posted END AS total
  ), s AS (
    SELECT l.*, u.asset_code, u.account_id, u.user_id, u.total,
           CASE WHEN l.dir = u.normal_balance THEN l.amt ELSE -l.amt END AS signed
    FROM l JOIN u ON u.id = l.acc
  )
  INSERT INTO ledger_lines (id, entry_id, line_no, environment, ledger_account_id, asset_code, direction, amount, status,
                            balance_after, account_id, user_id, txn_type, created_at, completed_at)
  SELECT ledger__new_id('txn'), v_id, s.n, v_env, s.acc, s.asset_code, s.dir, s.amt,
         CASE WHEN v_pending THEN 'pending' ELSE 'posted' END,
         CASE WHEN v_pending THEN NULL
              ELSE s.total - sum(s.signed) OVER (PARTITION BY s.acc) + sum(s.signed) OVER (PARTITION BY s.acc ORDER BY s.n) END,
         s.account_id, s.user_id, s.tt, v_now, CASE WHEN v_pending THEN NULL ELSE v_now END
  FROM s ORDER BY s.n;

  PERFORM ledger__emit(v_id, v_accs, v_now, true, NOT v_pending);
  RETURN ledger_entry_json(v_id);
END $$;

-- Outbox events of a posting, in the same transaction as the money movement.
CREATE FUNCTION ledger__emit(p_entry_id text, p_accounts text[], p_now timestamptz, p_created boolean, p_completed boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_env text;
  v_ref text;
BEGIN
  SELECT environment, reference INTO v_env, v_ref FROM journal_entries WHERE id = p_entry_id;
  INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
  SELECT ledger__new_id('evt'), ev.type, v_env, l.user_id, 'transaction', l.id, ledger_transaction_json(l, v_ref), p_now
  FROM ledger_lines l
  CROSS JOIN (VALUES (1, 'transaction.created'), (2, 'transaction.completed')) ev(ord, type)
  WHERE l.entry_id = p_entry_id AND l.account_id IS NOT NULL
    AND ((ev.ord = 1 AND p_created) OR (ev.ord = 2 AND p_completed))
  ORDER BY l.line_no, ev.ord;

  INSERT INTO outbox_events (id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at)
  SELECT ledger__new_id('evt'), 'account.balance_updated', v_env, la.user_id, 'account', la.account_id,
         ledger_balance_json(la) || jsonb_build_object('entry_id', p_entry_id), p_now
  FROM ledger_accounts la
  -- kind || '' keeps the planner on the primary key (the kind index would visit every customer).
  WHERE la.id = ANY (p_accounts) AND la.kind || '' = 'customer'
  ORDER BY la.id;
END $$;

CREATE FUNCTION ledger_post_entry(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  RETURN ledger__post(p, NULL, false);
END $$;

-- Moves a locked pending entry to posted or voided: pending totals move to posted (or are
-- released), lines get their status and balance_after, and events are written.
CREATE FUNCTION ledger__resolve(p_entry journal_entries, p_to text, p_key text, p_reason text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_now   timestamptz;
  v_bad   record;
  v_accs  text[];
  v_post  boolean := p_to = 'posted';
BEGIN
  SELECT array_agg(DISTINCT ledger_account_id) INTO v_accs FROM ledger_lines WHERE entry_id = p_entry.id;
  PERFORM 1 FROM ledger_accounts WHERE id = ANY (v_accs) ORDER BY id FOR UPDATE;
  v_now := clock_timestamp();

  IF v_post THEN
    SELECT la.id, la.status INTO v_bad
    FROM ledger_lines l JOIN ledger_accounts la ON la.id = l.ledger_account_id
    WHERE l.entry_id = p_entry.id AND (la.status = 'closed' OR (la.status = 'frozen' AND l.direction = 'debit'))
    ORDER BY l.line_no LIMIT 1;
    IF FOUND THEN
      PERFORM ledger__err(CASE WHEN v_bad.status = 'closed' THEN 'ACCOUNT_CLOSED' ELSE 'ACCOUNT_FROZEN' END,
        'ledger account ' || v_bad.id || ' is ' || v_bad.status, jsonb_build_object('account_id', v_bad.id));
    END IF;
  END IF;

  WITH l AS (
    SELECT id, ledger_account_id AS acc, direction AS dir, amount AS amt, line_no AS n FROM ledger_lines WHERE entry_id = p_entry.id
  ), d AS (
    SELECT acc, sum(CASE WHEN dir = 'debit' THEN amt ELSE 0 END) dr, sum(CASE WHEN dir = 'credit' THEN amt ELSE 0 END) cr
    FROM l GROUP BY acc
  ), u AS (
    UPDATE ledger_accounts la SET
      debits_pending  = la.debits_pending - d.dr,
      credits_pending = la.credits_pending - d.cr,
      debits_posted   = la.debits_posted  + CASE WHEN v_post THEN d.dr ELSE 0 END,
      credits_posted  = la.credits_posted + CASE WHEN v_post THEN d.cr ELSE 0 END,
      overdraft_allowance = ledger__allowance(la.no_overdraft, la.overdraft_allowance,
        ledger__deficit(la.normal_balance,
          la.debits_posted + CASE WHEN v_post THEN d.dr ELSE 0 END, la.debits_pending - d.dr,
          la.credits_posted + CASE WHEN v_post THEN d.cr ELSE 0 END, la.credits_pending - d.cr), false),
      updated_at = v_now
    FROM d WHERE la.id = d.acc AND la.id = ANY (v_accs)
    RETURNING la.id, la.normal_balance,
              CASE WHEN la.normal_balance = 'credit' THEN la.credits_posted - la.debits_posted ELSE la.debits_posted - la.credits_posted END AS total
  ), s AS (
    SELECT l.id, u.total - sum(CASE WHEN l.dir = u.normal_balance THEN l.amt ELSE -l.amt END) OVER (PARTITION BY l.acc)
                 + sum(CASE WHEN l.dir = u.normal_balance THEN l.amt ELSE -l.amt END) OVER (PARTITION BY l.acc ORDER BY l.n) AS balance_after,
           l.n
    FROM l JOIN u ON u.id = l.acc
  ), q AS (
    SELECT s.*, CASE WHEN v_post THEN nextval('ledger_lines_seq_seq') END AS new_seq FROM (SELECT * FROM s ORDER BY s.n) s
  )
  UPDATE ledger_lines x SET
    seq = coalesce(q.new_seq, x.seq),
    status = p_to,
    balance_after = CASE WHEN v_post THEN q.balance_after END,
    completed_at = CASE WHEN v_post THEN v_now END
  FROM q WHERE x.id = q.id;

  UPDATE journal_entries SET
    status = p_to,
    posted_at = CASE WHEN v_post THEN v_now END,
    voided_at = CASE WHEN v_post THEN NULL ELSE v_now END,
    void_reason = p_reason,
    resolution_key = p_key
  WHERE id = p_entry.id;

  PERFORM ledger__emit(p_entry.id, v_accs, v_now, false, v_post);
END $$;

-- Posts a pending entry. Replaying the same key returns the entry; a different key on a posted
-- entry is ALREADY_POSTED. A pending entry past its timeout is voided (that commits) and the
-- result carries error PENDING_EXPIRED instead of raising, so the void is not rolled back.
CREATE FUNCTION ledger_post_pending(p_id text, p_key text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  e journal_entries%ROWTYPE;
BEGIN
  SELECT * INTO e FROM journal_entries WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN PERFORM ledger__err('ENTRY_NOT_FOUND', 'entry ' || p_id || ' not found'); END IF;
  IF NOT e.two_phase THEN PERFORM ledger__err('NOT_PENDING', 'entry ' || p_id || ' is not a two-phase entry'); END IF;
  IF e.status = 'posted' THEN
    IF e.resolution_key = p_key THEN RETURN ledger_entry_json(p_id); END IF;
    PERFORM ledger__err('ALREADY_POSTED', 'entry ' || p_id || ' is already posted');
  END IF;
  IF e.status = 'voided' THEN
    IF e.resolution_key IS NULL AND e.void_reason = 'expired' THEN
      PERFORM ledger__err('PENDING_EXPIRED', 'entry ' || p_id || ' expired and was voided');
    END IF;
    PERFORM ledger__err('ALREADY_VOIDED', 'entry ' || p_id || ' is voided');
  END IF;
  IF e.pending_expires_at IS NOT NULL AND e.pending_expires_at <= clock_timestamp() THEN
    PERFORM ledger__resolve(e, 'voided', NULL, 'expired');
    RETURN jsonb_build_object('error', 'PENDING_EXPIRED', 'entry', ledger_entry_json(p_id));
  END IF;
  PERFORM ledger__resolve(e, 'posted', p_key, NULL);
  RETURN ledger_entry_json(p_id);
END $$;

CREATE FUNCTION ledger_void_pending(p_id text, p_key text, p_reason text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  e journal_entries%ROWTYPE;
BEGIN
  SELECT * INTO e FROM journal_entries WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN PERFORM ledger__err('ENTRY_NOT_FOUND', 'entry ' || p_id || ' not found'); END IF;
  IF NOT e.two_phase THEN PERFORM ledger__err('NOT_PENDING', 'entry ' || p_id || ' is not a two-phase entry'); END IF;
  IF e.status = 'voided' THEN
    IF e.resolution_key = p_key THEN RETURN ledger_entry_json(p_id); END IF;
    PERFORM ledger__err('ALREADY_VOIDED', 'entry ' || p_id || ' is already voided');
  END IF;
  IF e.status = 'posted' THEN PERFORM ledger__err('ALREADY_POSTED', 'entry ' || p_id || ' is already posted'); END IF;
  PERFORM ledger__resolve(e, 'voided', p_key, coalesce(nullif(p_reason, ''), 'voided'));
  RETURN ledger_entry_json(p_id);
END $$;

-- Voids one pending entry if it is past its timeout; false when there was nothing to do.
CREATE FUNCTION ledger_expire_pending(p_id text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  e journal_entries%ROWTYPE;
BEGIN
  SELECT * INTO e FROM journal_entries WHERE id = p_id FOR UPDATE;
  IF NOT FOUND OR e.status <> 'pending' OR e.pending_expires_at IS NULL OR e.pending_expires_at > clock_timestamp() THEN
    RETURN false;
  END IF;
  PERFORM ledger__resolve(e, 'voided', NULL, 'expired');
  RETURN true;
END $$;

-- Reverses a posted entry with a new entry of swapped directions linked to it. At most once (the
-- unique index on reverses_entry_id). With p_force, no-overdraft accounts may go negative: the
-- shortfall is granted as overdraft_allowance and recorded in the entry's forced_overdraft.
CREATE FUNCTION ledger_reverse_entry(p_id text, p_key text, p_reason text, p_force boolean, p_user_id text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  o journal_entries%ROWTYPE;
  v_lines jsonb;
  p jsonb;
BEGIN
  SELECT * INTO o FROM journal_entries WHERE id = p_id;
  IF NOT FOUND THEN PERFORM ledger__err('ENTRY_NOT_FOUND', 'entry ' || p_id || ' not found'); END IF;

  SELECT jsonb_agg(jsonb_build_object(
           'account_id', l.ledger_account_id,
           'direction', CASE WHEN l.direction = 'debit' THEN 'credit' ELSE 'debit' END,
           'amount', round(l.amount, a.precision)::text) ORDER BY l.line_no)
    INTO v_lines
  FROM ledger_lines l JOIN assets a ON a.code = l.asset_code WHERE l.entry_id = p_id;

  p := jsonb_build_object(
    'environment', o.environment, 'idempotency_key', p_key, 'type', 'reversal',
    'description', 'Reversal of ' || o.id || coalesce(': ' || nullif(p_reason, ''), ''),
    'reference', o.reference,
    'metadata', jsonb_build_object('reason', p_reason, 'reversed_entry_type', o.type, 'forced', coalesce(p_force, false)),
    'user_id', coalesce(p_user_id, o.user_id), 'lines', v_lines);

  -- A replayed key answers as the first call did, whatever happened since.
  IF NOT EXISTS (SELECT 1 FROM journal_entries WHERE environment = o.environment AND idempotency_key = p_key) THEN
    IF o.status = 'pending' THEN PERFORM ledger__err('NOT_POSTED', 'entry ' || p_id || ' is pending; void it instead'); END IF;
    IF o.status = 'voided' THEN PERFORM ledger__err('ALREADY_VOIDED', 'entry ' || p_id || ' is voided'); END IF;
    IF EXISTS (SELECT 1 FROM journal_entries WHERE reverses_entry_id = p_id) THEN
      PERFORM ledger__err('ALREADY_REVERSED', 'entry ' || p_id || ' is already reversed');
    END IF;
  END IF;
  RETURN ledger__post(p, p_id, coalesce(p_force, false));
END $$;

-- The posting functions' statements look rows up by key only, so a generic plan is always right;
-- without this, PL/pgSQL keeps re-planning them per call (a third of a posting's cost, measured).
ALTER FUNCTION ledger__post(jsonb, text, boolean) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger__emit(text, text[], timestamptz, boolean, boolean) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger__resolve(journal_entries, text, text, text) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger_post_pending(text, text) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger_void_pending(text, text, text) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger_reverse_entry(text, text, text, boolean, text) SET plan_cache_mode = force_generic_plan;
