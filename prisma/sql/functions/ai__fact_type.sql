-- The product's transaction type of a customer ledger line (docs/ai.md).
CREATE OR REPLACE FUNCTION ai__fact_type(p_entry_type text, p_entry_metadata jsonb, p_txn_type text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_entry_type = 'bridge' THEN 'cross_chain_transfer'
              WHEN p_entry_type IN ('swap', 'flash_loan') THEN 'swap'
              WHEN p_entry_type LIKE 'basket%' THEN 'basket_buy'
              WHEN p_entry_metadata ? 'rail_payment_id' THEN 'rail_payment'
              WHEN p_entry_metadata ? 'ilp_payment_id' THEN 'interledger_payment'
              WHEN p_txn_type IN ('transfer_in', 'transfer_out') THEN 'transfer'
              ELSE p_txn_type END
$$;
