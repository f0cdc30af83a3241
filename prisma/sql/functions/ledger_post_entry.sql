CREATE OR REPLACE FUNCTION ledger_post_entry(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
  RETURN ledger__post(p, NULL, false);
END $$;
