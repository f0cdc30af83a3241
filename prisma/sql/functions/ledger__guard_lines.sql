CREATE OR REPLACE FUNCTION ledger__guard_lines() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status IN ('posted', 'voided')
     AND (to_jsonb(NEW) - ARRAY['status', 'balance_after', 'completed_at', 'seq'])
       = (to_jsonb(OLD) - ARRAY['status', 'balance_after', 'completed_at', 'seq']) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'LGR01', MESSAGE = 'IMMUTABLE: ledger lines cannot be ' || lower(TG_OP) || 'd';
END $$;
