-- ISO 13616 check digits: 98 - (BBAN + country letters as digits + "00") mod 97.
CREATE OR REPLACE FUNCTION open_banking__iban(p_n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'DE' || lpad((98 - mod(('00000000' || lpad(p_n::text, 10, '0') || '131400')::numeric, 97))::text, 2, '0')
         || '00000000' || lpad(p_n::text, 10, '0')
$$;
