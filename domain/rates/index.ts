import { getAsset } from '../assets';
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney, parseAmount } from '../money/amount';

export interface RateQuote {
  /** Asset priced */
  base: string;
  /** Currency of the price; always USD here */
  quote: string;
  /** Price of one unit of base in quote, decimal string */
  rate: string;
  asOf: Date;
  source: string;
}

/** Where exchange rates come from (a market-data vendor in production; a fixed snapshot in sandbox). */
export interface RateProvider {
  readonly name: string;
  /** The provider answers for past instants as they were (the sandbox feed is a pure function of asset and hour). */
  readonly historical?: boolean;
  /** Quotes as of `at` (default now); a provider without history (the fixed snapshot) ignores it. */
  fetchRates(at?: Date): Promise<RateQuote[]>;
}

/** The seeded snapshot: one USD price per asset. The ledger and chains migrations insert the same rows. */
export const SANDBOX_RATES: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '1.08',
  GBP: '1.27',
  CHF: '1.13',
  JPY: '0.0067',
  XAU: '2650',
  BTC: '95000',
  ETH: '3400',
  USDC: '1',
  GCU: '1.10',
  // Tokens added with the chains (migration 20261121050000_chains); wrapped tokens at their underlying's price.
  USDT: '1',
  DAI: '1',
  WETH: '3400',
  WBTC: '95000',
};

export const SANDBOX_RATES_AS_OF = new Date('2026-11-21T00:00:00Z');

export class SandboxRateProvider implements RateProvider {
  readonly name = 'sandbox';
  constructor(
    private readonly rates: Readonly<Record<string, string>> = SANDBOX_RATES,
    private readonly asOf: () => Date = () => SANDBOX_RATES_AS_OF,
  ) {}

  async fetchRates(): Promise<RateQuote[]> {
    const asOf = this.asOf();
    return Object.entries(this.rates).map(([base, rate]) => ({ base, quote: 'USD', rate, asOf, source: this.name }));
  }
}

/** Stores the provider's quotes (as of `at`, default now); returns how many were stored. */
export async function refreshRates(provider: RateProvider, client: Queryable = getPool(), at?: Date): Promise<number> {
  return insertQuotes(provider.name, await provider.fetchRates(at), client);
}

/** Stores a provider's quotes in exchange_rates (one statement); a malformed rate refuses them all. */
export async function insertQuotes(providerName: string, quotes: RateQuote[], client: Queryable = getPool()): Promise<number> {
  for (const q of quotes) {
    if (!/^\d+(\.\d+)?$/.test(q.rate)) throw new Error(`Rate provider ${providerName} sent a malformed rate for ${q.base}`);
  }
  if (quotes.length === 0) return 0;
  await client.query(
    `INSERT INTO exchange_rates (base_asset, quote_asset, rate, as_of, source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::numeric[], $4::timestamptz[], $5::text[])`,
    [quotes.map((q) => q.base), quotes.map((q) => q.quote), quotes.map((q) => q.rate), quotes.map((q) => q.asOf), quotes.map((q) => q.source)],
  );
  return quotes.length;
}

/** Latest USD price of an asset as a decimal string, or null when none is known. */
export async function latestRate(assetCode: string, client: Queryable = getPool()): Promise<{ rate: string; asOf: Date; source: string } | null> {
  const { rows } = await client.query<{ rate: string; as_of: Date; source: string }>(
    `SELECT rate, as_of, source FROM exchange_rates WHERE base_asset = $1 AND quote_asset = 'USD'
     ORDER BY as_of DESC, id DESC LIMIT 1`,
    [assetCode.toUpperCase()],
  );
  const r = rows[0];
  return r ? { rate: new DecimalMoney(r.rate).toFixed(), asOf: r.as_of, source: r.source } : null;
}

/** Latest USD price of every asset that has one. */
export async function latestRates(client: Queryable = getPool()): Promise<Map<string, string>> {
  const { rows } = await client.query<{ base_asset: string; rate: string }>(
    `SELECT DISTINCT ON (base_asset) base_asset, rate FROM exchange_rates WHERE quote_asset = 'USD'
     ORDER BY base_asset, as_of DESC, id DESC`,
  );
  return new Map(rows.map((r) => [r.base_asset, new DecimalMoney(r.rate).toFixed()]));
}

/**
 * USD value of `amount` of an asset, rounded to cents. `amount` may be negative (balances can be
 * after a forced reversal). Throws when the asset or its rate is unknown.
 */
export async function usdEquivalent(assetCode: string, amount: string, client: Queryable = getPool()): Promise<string> {
  const asset = await getAsset(assetCode, client);
  if (!asset) throw new Error(`Unknown asset ${assetCode}`);
  const negative = amount.startsWith('-');
  parseAmountOrZero(negative ? amount.slice(1) : amount);
  const rate = await latestRate(asset.code, client);
  if (!rate) throw new Error(`No USD rate for ${asset.code}`);
  return new DecimalMoney(amount).times(rate.rate).toDecimalPlaces(2, DecimalMoney.ROUND_HALF_EVEN).toFixed(2);
}

function parseAmountOrZero(value: string): void {
  if (/^0+(\.0+)?$/.test(value)) return;
  parseAmount(value, 18);
}
