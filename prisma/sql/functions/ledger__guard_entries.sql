CREATE OR REPLACE FUNCTION ledger__guard_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.status = 'pending' AND NEW.status IN ('posted', 'voided')
     AND (to_jsonb(NEW) - ARRAY['status', 'posted_at', 'voided_at', 'void_reason', 'resolution_key'])
       = (to_jsonb(OLD) - ARRAY['status', 'posted_at', 'voided_at', 'void_reason', 'resolution_key']) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'LGR01', MESSAGE = 'IMMUTABLE: journal entries cannot be ' || lower(TG_OP) || 'd';
END $$;
