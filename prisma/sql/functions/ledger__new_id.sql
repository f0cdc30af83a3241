-- Time-ordered ids, as the application's newId (domain/platform/ids.ts): UUIDv7 (48 bits of
-- milliseconds, 74 random bits), so new ids land at the right edge of each index.
CREATE OR REPLACE FUNCTION ledger__new_id(p_prefix text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT p_prefix || '_' || overlay(replace(gen_random_uuid()::text, '-', '')
                                    PLACING lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') || '7'
                                    FROM 1 FOR 13)
$$;
