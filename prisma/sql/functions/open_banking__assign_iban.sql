CREATE OR REPLACE FUNCTION open_banking__assign_iban() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_ibans (account_id, iban) VALUES (NEW.id, open_banking__iban(nextval('account_iban_seq')));
  RETURN NULL;
END $$;
