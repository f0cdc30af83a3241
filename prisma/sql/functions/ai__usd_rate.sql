-- A line's USD value in cents at the latest USD rate of its asset (NULL: the asset has none). Two
-- functions so that a batch looks each asset's rate up once; the second is inlined where it is used.
CREATE OR REPLACE FUNCTION ai__usd_rate(p_asset_code text) RETURNS numeric
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT x.rate FROM exchange_rates x
           WHERE x.base_asset = p_asset_code AND x.quote_asset = 'USD' ORDER BY x.as_of DESC, x.id DESC LIMIT 1);
END $$;
