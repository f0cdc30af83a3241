-- Customer-visible transaction type of a line (docs/ledger.md).
CREATE OR REPLACE FUNCTION ledger__txn_type(p_entry_type text, p_direction text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN p_entry_type = 'reversal' THEN 'reversal'
    WHEN p_entry_type = 'fee' THEN 'fee'
    WHEN p_entry_type = 'deposit' THEN CASE WHEN p_direction = 'credit' THEN 'deposit' ELSE 'withdrawal' END
    WHEN p_entry_type = 'withdrawal' THEN CASE WHEN p_direction = 'debit' THEN 'withdrawal' ELSE 'deposit' END
    ELSE CASE WHEN p_direction = 'credit' THEN 'transfer_in' ELSE 'transfer_out' END
  END
$$;
