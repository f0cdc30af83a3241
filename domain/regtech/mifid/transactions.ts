/**
 * The platform's trades a MiFID II report can be about, read as RTS 22 needs them: a GCU buy
 * (basket_buys: the customer buys basket units from the platform, which issues them on its own
 * account: trading capacity DEAL) and a DeFi swap (defi_swaps: the platform executes the
 * customer's swap on a DEX and faces the customer as matched principal: MTCH). Which side is the
 * financial instrument comes from the register (instruments.ts): the asset received (a buy by the
 * client), else the asset given (a sale by the client), else the trade is not reportable.
 */
import { getAsset } from '../../assets';
import type { Queryable } from '../../db/pool';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { instrumentFor, type MifidInstrument } from './instruments';

export type TransactionKind = 'basket_buy' | 'defi_swap';

export interface Trade {
  id: string;
  kind: TransactionKind;
  status: string;
  executedAt: Date | null;
  /** The asset the customer received and its quantity. */
  received: { asset: string; quantity: string };
  /** The asset the customer gave and its amount (for a GCU buy: the cost, without the platform's fee). */
  given: { asset: string; amount: string };
  /** A GCU buy's execution price (spend asset per unit), as the buy recorded it. */
  executionPrice: string | null;
  /** USD per unit of the given asset at the trade's quote, when the trade recorded it (GCU buys). */
  givenUsdRate: string | null;
}

type Row = {
  kind: TransactionKind;
  status: string;
  executed_at: Date | null;
  received_asset: string;
  received_quantity: string | null;
  given_asset: string;
  given_amount: string | null;
  execution_price: string | null;
  given_usd_rate: string | null;
};

/** The caller's trade by id in the caller's environment, else 404 TRANSACTION_NOT_FOUND (another user's included). */
export async function findTrade(userId: string, environment: Environment, id: string, c: Queryable): Promise<Trade> {
  const { rows } = await c.query<Row>(
    `SELECT 'basket_buy' AS kind, status, completed_at AS executed_at, basket_code AS received_asset, units::text AS received_quantity,
            spend_asset AS given_asset, cost::text AS given_amount, execution_price::text AS execution_price,
            (value_usd / quoted_price)::text AS given_usd_rate
       FROM basket_buys WHERE id = $1 AND user_id = $2 AND environment = $3
     UNION ALL
     SELECT 'defi_swap', status, completed_at, asset_out, actual_output::text, asset_in, amount_in::text, NULL, NULL
       FROM defi_swaps WHERE id = $1 AND user_id = $2 AND environment = $3
     LIMIT 1`,
    [id, userId, environment],
  );
  const r = rows[0];
  if (!r) throw new DomainError('TRANSACTION_NOT_FOUND', `No GCU buy or DeFi swap ${id.slice(0, 60)} of yours`, '/transaction_id');
  return {
    id,
    kind: r.kind,
    status: r.status,
    executedAt: r.executed_at,
    received: { asset: r.received_asset, quantity: r.received_quantity ?? '0' },
    given: { asset: r.given_asset, amount: r.given_amount ?? '0' },
    executionPrice: r.execution_price,
    givenUsdRate: r.given_usd_rate,
  };
}

export interface ReportableTrade {
  trade: Trade;
  executedAt: Date;
  instrument: MifidInstrument;
  /** The customer's side: 'buy' when the customer received the instrument. */
  clientSide: 'buy' | 'sell';
  /** RTS 22 field 29. */
  capacity: 'DEAL' | 'MTCH';
  /** Units of the instrument (field 30). */
  quantity: string;
  /** Price per unit (field 33) in priceCurrency (field 34). */
  price: string;
  priceCurrency: string;
  /** How the price currency was reached, for the record. */
  priceBasis: string;
  /** Code of the algorithm that executed it within the platform (fields 57 and 59). */
  algorithm: string;
}

/** An ISO 4217 currency code among the platform's assets (fiat, three letters). */
async function isoCurrency(code: string, c: Queryable): Promise<boolean> {
  const a = await getAsset(code, c);
  return !!a && a.type === 'fiat' && /^[A-Z]{3}$/.test(a.code);
}

/** USD per unit of an asset: the platform's last recorded rate at or before `at` (else the first after), else 422 RATE_UNAVAILABLE. */
async function usdRateAt(asset: string, at: Date, c: Queryable): Promise<string> {
  const { rows } = await c.query<{ rate: string }>(
    `SELECT rate::text AS rate FROM exchange_rates WHERE base_asset = $1 AND quote_asset = 'USD'
      ORDER BY as_of > $2, abs(extract(epoch FROM as_of - $2)), id DESC LIMIT 1`,
    [asset, at],
  );
  if (!rows[0]) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${asset} to express the price in a currency`, '/transaction_id');
  return rows[0].rate;
}

/**
 * The trade as a reportable transaction: executed, with an instrument in the register, and its
 * price in an ISO 4217 currency (a price in a crypto-asset is converted to USD at the rate of the
 * trade: the quote's rate for a GCU buy, the platform's recorded rate at execution for a swap).
 */
export async function reportableTrade(trade: Trade, c: Queryable): Promise<ReportableTrade> {
  if (trade.status !== 'completed' || !trade.executedAt) {
    throw new DomainError('TRANSACTION_NOT_EXECUTED', `${trade.id.slice(0, 60)} is ${trade.status}: only executed (completed) trades are reported`, '/transaction_id');
  }
  const received = await instrumentFor(trade.received.asset, c);
  const given = received ? null : await instrumentFor(trade.given.asset, c);
  const instrument = received ?? given;
  if (!instrument) {
    throw new DomainError(
      'INSTRUMENT_NOT_REPORTABLE',
      `Neither ${trade.received.asset} nor ${trade.given.asset} has an ISIN in the MiFID II instrument register: the trade is not a reportable transaction`,
      '/transaction_id',
    );
  }
  const clientSide = received ? 'buy' : 'sell';
  const quantity = clientSide === 'buy' ? trade.received.quantity : trade.given.amount;
  const counterAsset = clientSide === 'buy' ? trade.given.asset : trade.received.asset;
  const counterAmount = clientSide === 'buy' ? trade.given.amount : trade.received.quantity;
  if (new D(quantity).lte(0)) throw new DomainError('TRANSACTION_NOT_EXECUTED', `${trade.id.slice(0, 60)} moved no units of ${instrument.assetCode}`, '/transaction_id');
  let price = trade.kind === 'basket_buy' && trade.executionPrice ? new D(trade.executionPrice) : new D(counterAmount).div(quantity);
  let priceCurrency = counterAsset;
  let priceBasis = `${counterAsset} per unit`;
  if (!(await isoCurrency(counterAsset, c))) {
    const rate = trade.kind === 'basket_buy' && trade.givenUsdRate ? trade.givenUsdRate : await usdRateAt(counterAsset, trade.executedAt, c);
    price = price.times(rate);
    priceCurrency = 'USD';
    priceBasis = `${counterAsset} per unit converted at ${new D(rate).toFixed()} USD per ${counterAsset} (${trade.kind === 'basket_buy' ? "the buy's quote" : 'platform rate at execution'})`;
  }
  return {
    trade,
    executedAt: trade.executedAt,
    instrument,
    clientSide,
    capacity: trade.kind === 'basket_buy' ? 'DEAL' : 'MTCH',
    quantity: new D(quantity).toFixed(),
    price: price.toFixed(),
    priceCurrency,
    priceBasis,
    algorithm: trade.kind === 'basket_buy' ? 'GCUBUYWORKFLOW' : 'DEFISWAPROUTER',
  };
}
