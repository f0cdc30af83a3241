/**
 * Buying basket units with one asset (POST /gcu/buy): the quote, the record and starting its
 * workflow. The workflow's steps are in buy-settle.ts.
 *
 * Pricing: price = basket value in USD (IMF method, valuation.ts) ÷ USD rate of the spend asset.
 * Units are fixed at the quote (bought by `amount`, or the most that `spend_amount` pays for at
 * the worst price). The workflow executes at the price of the moment if it is at most
 * max_price = price × (1 + slippage); it reserves the cost and fee at max_price, so whatever
 * it executes at is covered. Costs and fees round up to the spend asset's precision; units bought
 * for a spend amount round down to the basket's precision.
 */
import type { Principal } from '../auth/principal';
import { getAccount } from '../accounts';
import { getAsset, type Asset } from '../assets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { clientIdempotencyKey } from '../ledger';
import { DecimalMoney as D, parseRequestAmount } from '../money/amount';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRates } from '../rates';
import { SA } from '../temporal/search-attributes';
import { startMoneyWorkflow } from '../temporal/start';
import { getBasket, PRIMARY_BASKET, type Basket } from './definitions';
import { valueBasket } from './valuation';

export type BuyStatus = 'pending' | 'reserved' | 'completed' | 'failed';

export interface BasketBuy {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  basketCode: string;
  spendAsset: string;
  /** Decimals of the spend asset (costs, fees and reservations are at this precision). */
  spendPrecision: number;
  units: string;
  quotedPrice: string;
  maxPrice: string;
  slippageBps: number;
  feeBps: number;
  quotedCost: string;
  quotedFee: string;
  reservedAmount: string;
  executionPrice: string | null;
  cost: string | null;
  fee: string | null;
  valueUsd: string;
  status: BuyStatus;
  reservationEntryId: string | null;
  settlementEntryId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  compensation: 'voided' | 'none' | null;
  workflowId: string;
  quoteExpiresAt: Date;
  createdAt: Date;
  completedAt: Date | null;
  failedAt: Date | null;
}

const PRICE_DECIMALS = 12;
export const MAX_SLIPPAGE_BPS = 1000;

/** Spend asset per basket unit at these rates, and the basket's USD value. */
export function basketPrice(basket: Pick<Basket, 'components' | 'code'>, rates: Map<string, string>, spendAsset: string): { price: string; valueUsd: string } {
  const missing = basket.components.find((c) => !rates.get(c.assetCode));
  if (missing) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${missing.assetCode}`);
  const spendRate = rates.get(spendAsset);
  if (!spendRate || new D(spendRate).lte(0)) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${spendAsset}`, '/spend_asset');
  const { valueUsd } = valueBasket(basket.components.map((c) => ({ assetCode: c.assetCode, amount: c.amount, rate: rates.get(c.assetCode)! })));
  return { valueUsd, price: new D(valueUsd).div(spendRate).toDecimalPlaces(PRICE_DECIMALS, D.ROUND_HALF_EVEN).toFixed() };
}

/** Cost of `units` at `price`, rounded up to the spend asset's precision. */
export function costOf(units: string, price: string, precision: number): string {
  return new D(units).times(price).toDecimalPlaces(precision, D.ROUND_UP).toFixed(precision);
}

/** The platform's fee on a cost, rounded up to the spend asset's precision. */
export function feeOf(cost: string, feeBps: number, precision: number): string {
  return new D(cost).times(feeBps).div(10_000).toDecimalPlaces(precision, D.ROUND_UP).toFixed(precision);
}

export interface BuyQuote {
  units: string;
  quotedPrice: string;
  maxPrice: string;
  quotedCost: string;
  quotedFee: string;
  reservedAmount: string;
  valueUsd: string;
}

/**
 * The quote for buying `units` (or as many as `spendAmount` pays for at the worst price, fee
 * included). Pure: rates and precisions come in.
 */
export function quoteBuy(input: {
  basket: Pick<Basket, 'components' | 'code'>;
  basketPrecision: number;
  spend: Pick<Asset, 'code' | 'precision'>;
  rates: Map<string, string>;
  slippageBps: number;
  feeBps: number;
  units?: string;
  spendAmount?: string;
}): BuyQuote {
  const { price, valueUsd } = basketPrice(input.basket, input.rates, input.spend.code);
  const p = input.spend.precision;
  const maxPrice = new D(price).times(10_000 + input.slippageBps).div(10_000).toDecimalPlaces(PRICE_DECIMALS, D.ROUND_UP).toFixed();
  const reserve = (u: string) => {
    const c = costOf(u, maxPrice, p);
    return new D(c).plus(feeOf(c, input.feeBps, p)).toFixed(p);
  };
  let units: InstanceType<typeof D>;
  if (input.units !== undefined) units = new D(input.units);
  else {
    const budget = new D(input.spendAmount!);
    const step = new D(1).div(new D(10).pow(input.basketPrecision));
    units = budget.div(new D(maxPrice).times(10_000 + input.feeBps).div(10_000)).toDecimalPlaces(input.basketPrecision, D.ROUND_DOWN);
    // Rounding the cost and fee up can take the worst case a minor unit above the budget.
    while (units.gt(0) && new D(reserve(units.toFixed(input.basketPrecision))).gt(budget)) units = units.minus(step);
    if (units.lte(0)) throw new DomainError('AMOUNT_TOO_SMALL', `spend_amount does not buy one ${step.toFixed()} ${input.basket.code} with fee and slippage`, '/spend_amount');
  }
  const u = units.toFixed(input.basketPrecision);
  const quotedCost = costOf(u, price, p);
  return { units: u, quotedPrice: price, maxPrice, quotedCost, quotedFee: feeOf(quotedCost, input.feeBps, p), reservedAmount: reserve(u), valueUsd };
}

export interface BuyRequest {
  account_uuid: string;
  spend_asset: string;
  spend_amount?: string;
  amount?: string;
  basket_code?: string;
  slippage_bps?: number;
}

type Row = Record<string, unknown> & { id: string };
const dec = (v: unknown) => (v === null || v === undefined ? null : new D(v as string).toFixed());

function toBuy(r: Row, spendPrecision?: number, basketPrecision?: number): BasketBuy {
  const money = (v: unknown) => (v === null || v === undefined ? null : spendPrecision === undefined ? dec(v) : new D(v as string).toFixed(spendPrecision));
  return {
    id: r.id,
    environment: r.environment as Environment,
    userId: r.user_id as string,
    accountId: r.account_id as string,
    basketCode: r.basket_code as string,
    spendAsset: r.spend_asset as string,
    spendPrecision: (r.spend_precision as number) ?? 0,
    units: basketPrecision === undefined ? dec(r.units)! : new D(r.units as string).toFixed(basketPrecision),
    quotedPrice: dec(r.quoted_price)!,
    maxPrice: dec(r.max_price)!,
    slippageBps: r.slippage_bps as number,
    feeBps: r.fee_bps as number,
    quotedCost: money(r.quoted_cost)!,
    quotedFee: money(r.quoted_fee)!,
    reservedAmount: money(r.reserved_amount)!,
    executionPrice: dec(r.execution_price),
    cost: money(r.cost),
    fee: money(r.fee),
    valueUsd: dec(r.value_usd)!,
    status: r.status as BuyStatus,
    reservationEntryId: (r.reservation_entry_id as string) ?? null,
    settlementEntryId: (r.settlement_entry_id as string) ?? null,
    failureCode: (r.failure_code as string) ?? null,
    failureReason: (r.failure_reason as string) ?? null,
    compensation: (r.compensation as 'voided' | 'none') ?? null,
    workflowId: r.workflow_id as string,
    quoteExpiresAt: r.quote_expires_at as Date,
    createdAt: r.created_at as Date,
    completedAt: (r.completed_at as Date) ?? null,
    failedAt: (r.failed_at as Date) ?? null,
  };
}

const COLUMNS = `b.*, sa.precision AS spend_precision, ba.precision AS basket_precision`;
const FROM = `basket_buys b JOIN assets sa ON sa.code = b.spend_asset JOIN assets ba ON ba.code = b.basket_code`;
const fromRow = (r: Row) => toBuy(r, r.spend_precision as number, r.basket_precision as number);

export async function getBuy(id: string, client: Queryable = getPool()): Promise<BasketBuy | null> {
  const { rows } = await client.query<Row>(`SELECT ${COLUMNS} FROM ${FROM} WHERE b.id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Locks the buy's row (every workflow step takes it first). */
export async function lockBuy(c: Queryable, id: string): Promise<BasketBuy> {
  await c.query('SELECT 1 FROM basket_buys WHERE id = $1 FOR UPDATE', [id]);
  const b = await getBuy(id, c);
  if (!b) throw new DomainError('BASKET_BUY_NOT_FOUND', `Buy ${id} not found`);
  return b;
}

export async function updateBuy(c: Queryable, id: string, set: Record<string, string | number | null>): Promise<BasketBuy> {
  // 'now' means the database clock; every other value is a parameter.
  const params: Array<string | number | null> = [id];
  const assignments = Object.entries(set).map(([k, v]) => {
    if (v === 'now') return `${k} = now()`;
    params.push(v);
    return `${k} = $${params.length}`;
  });
  await c.query(`UPDATE basket_buys SET ${assignments.join(', ')} WHERE id = $1`, params);
  return (await getBuy(id, c))!;
}

/** The caller's buy in the caller's environment, else BASKET_BUY_NOT_FOUND. */
export async function getOwnBuy(p: Principal, id: string): Promise<BasketBuy> {
  const b = typeof id === 'string' && id.length <= 100 ? await getBuy(id) : null;
  if (!b || b.userId !== p.userId || b.environment !== p.environment) throw new DomainError('BASKET_BUY_NOT_FOUND', 'Buy not found');
  return b;
}

/**
 * Quotes and records a buy on one of the caller's accounts and starts its workflow. The same
 * Idempotency-Key returns the first buy. A workflow that cannot start fails the record (nothing
 * was reserved) and the caller gets WORKFLOW_UNAVAILABLE.
 */
export async function startBuy(p: Principal, body: BuyRequest, idempotencyKey?: string): Promise<BasketBuy> {
  if ((body.amount === undefined) === (body.spend_amount === undefined)) {
    throw new DomainError('INVALID_INPUT', 'Give exactly one of amount (basket units) and spend_amount', body.amount === undefined ? '/amount' : '/spend_amount');
  }
  const basketCode = body.basket_code ?? PRIMARY_BASKET;
  const basketAsset = await getAsset(basketCode);
  if (!basketAsset || basketAsset.type !== 'basket') throw new DomainError('UNKNOWN_BASKET', `No basket with code ${basketCode.slice(0, 32)}`, '/basket_code');
  const spend = await getAsset(body.spend_asset);
  if (!spend) throw new DomainError('UNKNOWN_ASSET', `Asset ${body.spend_asset.slice(0, 32)} is not supported`, '/spend_asset');
  if (spend.type === 'basket') throw new DomainError('INVALID_SPEND_ASSET', 'Basket units cannot pay for basket units; decompose them first', '/spend_asset');
  const slippageBps = body.slippage_bps ?? 50;
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > MAX_SLIPPAGE_BPS) {
    throw new DomainError('INVALID_SLIPPAGE', `slippage_bps must be an integer from 0 to ${MAX_SLIPPAGE_BPS}`, '/slippage_bps');
  }
  const units = body.amount !== undefined ? parseRequestAmount(body.amount, basketAsset) : undefined;
  const spendAmount = body.spend_amount !== undefined ? parseRequestAmount(body.spend_amount, spend, '/spend_amount') : undefined;
  const cfg = loadConfig();
  const key = idempotencyKey ? clientIdempotencyKey(p.userId, `basket-buy:${body.account_uuid}`, idempotencyKey) : `basket-buy:${newId('op')}`;

  const buy = await withTransaction(async (c) => {
    const account = await getAccount(p.userId, p.environment, body.account_uuid, c);
    if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${body.account_uuid} not found`, '/account_uuid');
    const { rows: existing } = await c.query<Row>(`SELECT ${COLUMNS} FROM ${FROM} WHERE b.environment = $1 AND b.idempotency_key = $2`, [p.environment, key]);
    if (existing[0]) return { buy: fromRow(existing[0]), fresh: false };
    if (account.status !== 'active') throw new DomainError(account.status === 'frozen' ? 'ACCOUNT_FROZEN' : 'ACCOUNT_CLOSED', `The account is ${account.status}`, '/account_uuid');
    const basket = await getBasket(basketAsset.code, p.environment, c);
    const q = quoteBuy({ basket, basketPrecision: basketAsset.precision, spend, rates: await latestRates(c), slippageBps, feeBps: cfg.basketBuyFeeBps, units, spendAmount });
    if (new D(q.units).gt(basketAsset.maxAmount)) throw new DomainError('AMOUNT_TOO_LARGE', `At most ${basketAsset.maxAmount} ${basketAsset.code} per operation`, '/amount');
    const id = newId('gbuy');
    await c.query(
      `INSERT INTO basket_buys (id, environment, user_id, account_id, basket_code, spend_asset, units, quoted_price, max_price, slippage_bps, fee_bps,
         quoted_cost, quoted_fee, reserved_amount, value_usd, workflow_id, idempotency_key, quote_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, now() + make_interval(secs => $18))`,
      [id, p.environment, p.userId, account.id, basketAsset.code, spend.code, q.units, q.quotedPrice, q.maxPrice, slippageBps, cfg.basketBuyFeeBps,
        q.quotedCost, q.quotedFee, q.reservedAmount, q.valueUsd, `basket-buy-${id}`, key, cfg.basketBuyQuoteTtlSeconds],
    );
    return { buy: (await getBuy(id, c))!, fresh: true };
  });
  if (!buy.fresh) return buy.buy;
  const b = buy.buy;
  await startMoneyWorkflow({
    workflowType: 'basketBuyWorkflow',
    workflowId: b.workflowId,
    args: [{ buyId: b.id }],
    subject: { id: b.id, accountIds: [b.accountId], assetCode: b.basketCode, amount: b.units, environment: b.environment, userId: b.userId },
    idKey: SA.operationId,
    onStartFailed: async () => {
      await withTransaction(async (c) => {
        const locked = await lockBuy(c, b.id);
        if (locked.status === 'pending') {
          await updateBuy(c, b.id, { status: 'failed', failure_code: 'WORKFLOW_START_FAILED', failure_reason: 'the buy could not be started; nothing was moved', compensation: 'none', failed_at: 'now' });
        }
      });
    },
  }).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The buy could not be started; nothing was moved. Retry later.');
  });
  return b;
}
