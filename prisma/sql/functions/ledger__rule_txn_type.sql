-- The customer-visible transaction types: the same list as TRANSACTION_TYPES in
-- domain/ledger/transactions.ts and the CHECK on ledger_lines.txn_type (tests/ledger/rules.test.ts).
CREATE OR REPLACE FUNCTION ledger__rule_txn_type(p_txn_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_txn_type NOT IN ('deposit', 'withdrawal', 'transfer_in', 'transfer_out', 'fee', 'reversal') THEN 'INVALID_ENTRY' END
$$;
