-- Account status under the lock. Closed takes nothing; frozen stops new debits, a forced posting (a
-- claw-back reversal) being the one exception. The API's own check before a transfer is
-- statusRefusal in domain/accounts/status.ts.
CREATE OR REPLACE FUNCTION ledger__rule_status(p_status text, p_is_debit boolean, p_forced boolean) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN p_status = 'closed' THEN 'ACCOUNT_CLOSED'
              WHEN p_status = 'frozen' AND p_is_debit AND NOT p_forced THEN 'ACCOUNT_FROZEN' END
$$;
