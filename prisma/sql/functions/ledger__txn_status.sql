CREATE OR REPLACE FUNCTION ledger__txn_status(p_line_status text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_line_status WHEN 'pending' THEN 'pending' WHEN 'posted' THEN 'completed' ELSE 'failed' END
$$;
