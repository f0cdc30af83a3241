/**
 * The steps of the basket buy workflow (activities/baskets/buy.ts calls them), each idempotent
 * and keyed by the workflow id and step:
 *
 * 1. reserve: a pending entry moves the worst-case total (cost and fee at max_price) from the
 *    customer's spend-asset account towards the desk; an account that cannot pay fails the buy
 *    with nothing reserved.
 * 2. acquire: the desk prices the basket at the latest rates; above max_price is
 *    SLIPPAGE_EXCEEDED, after the quote's expiry QUOTE_EXPIRED. The execution price, cost and fee
 *    are recorded once.
 * 3. settle: in one transaction and ONE entry, void the reservation and post: the customer pays
 *    cost + fee, the desk `basket_desk:<code>` receives the cost and sells each component into
 *    the reserve (basketLegs: the reserve rule holds), fee revenue takes the fee, and the basket
 *    units are issued to the customer.
 * On failure after reserving, compensate voids the reservation (retried, never swallowed).
 */
import { ensureCustomerLedgerAccount } from '../accounts';
import { withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { internalLedgerAccountId, postEntry, systemAccount, voidPending, workflowIdempotencyKey, type LineInput } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRates } from '../rates';
import { basketPrice, costOf, feeOf, lockBuy, updateBuy, type BasketBuy } from './buy';
import { getBasket, lockBasket } from './definitions';
import { basketLegs, recordOutstanding } from './reserve';

/** The platform's market desk for a basket: buys the spend asset, sells the components. */
export function deskAccount(environment: Environment, basketCode: string, assetCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId({ environment, assetCode, code: `basket_desk:${basketCode}`, name: `${basketCode} desk ${assetCode}`, normalBalance: 'debit' }, c);
}

const precisionOf = (b: BasketBuy) => b.spendPrecision;

export async function reserveBuy(buyId: string, workflowId: string): Promise<BasketBuy> {
  return withTransaction(async (c) => {
    const b = await lockBuy(c, buyId);
    if (b.status !== 'pending') return b;
    const customer = await ensureCustomerLedgerAccount(b.accountId, b.spendAsset, c);
    const desk = await deskAccount(b.environment, b.basketCode, b.spendAsset, c);
    const entry = await postEntry(
      {
        environment: b.environment,
        idempotencyKey: workflowIdempotencyKey(workflowId, 'reserve'),
        type: 'basket_buy',
        description: `Reserve for buying ${b.units} ${b.basketCode} with ${b.spendAsset}`,
        lines: [
          { accountId: customer, direction: 'debit', amount: b.reservedAmount, transactionType: 'transfer_out' },
          { accountId: desk, direction: 'credit', amount: b.reservedAmount },
        ],
        pending: true,
        pendingTimeoutSeconds: 3600,
        userId: b.userId,
        metadata: { basket_buy_id: b.id, step: 'reserve' },
      },
      c,
    );
    return updateBuy(c, b.id, { status: 'reserved', reservation_entry_id: entry.id });
  });
}

export async function acquireBuy(buyId: string, nowMs: number): Promise<BasketBuy> {
  return withTransaction(async (c) => {
    const b = await lockBuy(c, buyId);
    if (b.executionPrice !== null || b.status !== 'reserved') return b;
    if (b.quoteExpiresAt.getTime() <= nowMs) throw new DomainError('QUOTE_EXPIRED', `The quote expired at ${b.quoteExpiresAt.toISOString()}`);
    const basket = await getBasket(b.basketCode, b.environment, c);
    const { price } = basketPrice(basket, await latestRates(c), b.spendAsset);
    if (new D(price).gt(b.maxPrice)) {
      throw new DomainError('SLIPPAGE_EXCEEDED', `The basket now costs ${price} ${b.spendAsset} a unit, above the limit of ${b.maxPrice} (quoted ${b.quotedPrice}, slippage ${b.slippageBps} bps)`);
    }
    const p = precisionOf(b);
    const cost = costOf(b.units, price, p);
    return updateBuy(c, b.id, { execution_price: price, cost, fee: feeOf(cost, b.feeBps, p) });
  });
}

export async function settleBuy(buyId: string, workflowId: string): Promise<BasketBuy> {
  return withTransaction(async (c) => {
    const b = await lockBuy(c, buyId);
    if (b.status === 'completed') return b;
    if (b.status !== 'reserved' || b.cost === null || b.fee === null) throw new DomainError('BUY_NOT_READY', `Buy ${b.id} is ${b.status} and not priced`);
    const basket = await lockBasket(b.basketCode, b.environment, c);
    const entryId = newId('je');
    await voidPending(b.reservationEntryId!, { idempotencyKey: workflowIdempotencyKey(workflowId, 'release-for-settlement'), reason: `superseded by settlement entry ${entryId}` }, c);
    const customerSpend = await ensureCustomerLedgerAccount(b.accountId, b.spendAsset, c);
    const deskSpend = await deskAccount(b.environment, b.basketCode, b.spendAsset, c);
    const total = new D(b.cost).plus(b.fee).toFixed(precisionOf(b));
    const lines: LineInput[] = [
      { accountId: customerSpend, direction: 'debit', amount: total, transactionType: 'transfer_out' },
      { accountId: deskSpend, direction: 'credit', amount: b.cost },
    ];
    if (new D(b.fee).gt(0)) {
      lines.push({ accountId: await systemAccount(b.environment, b.spendAsset, 'fee_revenue', b.id, c), direction: 'credit', amount: b.fee });
    }
    const legs = await basketLegs(c, {
      basket,
      units: b.units,
      kind: 'compose',
      counterparty: (asset) => deskAccount(b.environment, b.basketCode, asset, c),
      holder: await ensureCustomerLedgerAccount(b.accountId, b.basketCode, c),
    });
    const entry = await postEntry(
      {
        environment: b.environment,
        idempotencyKey: workflowIdempotencyKey(workflowId, 'settle'),
        entryId,
        type: 'basket_buy',
        description: `Buy ${b.units} ${b.basketCode} with ${b.spendAsset} at ${b.executionPrice}`,
        reference: b.id,
        lines: [...lines, ...legs.lines],
        userId: b.userId,
        metadata: { basket_buy_id: b.id, version: basket.version, components: legs.deltas.map((d) => ({ asset_code: d.assetCode, amount: d.amount })) },
      },
      c,
    );
    await recordOutstanding(c, basket, legs.outstandingAfter);
    const done = await updateBuy(c, b.id, { status: 'completed', settlement_entry_id: entry.id, completed_at: 'now' });
    await writeOutboxEvent(c, {
      type: 'basket.buy.completed',
      environment: b.environment,
      userId: b.userId,
      aggregateType: 'basket_buy',
      aggregateId: b.id,
      data: { ...common(done), execution_price: done.executionPrice!, cost: done.cost!, fee: done.fee!, total, entry_id: entry.id, completed_at: done.completedAt!.toISOString() },
    });
    return done;
  });
}

/** Compensation: void the reservation (if any) and fail the buy with the step's refusal. */
export async function failBuy(buyId: string, workflowId: string, failure: { code: string; reason: string }): Promise<BasketBuy> {
  return withTransaction(async (c) => {
    const b = await lockBuy(c, buyId);
    if (b.status === 'failed' || b.status === 'completed') return b;
    let compensation: 'voided' | 'none' = 'none';
    if (b.reservationEntryId) {
      await voidPending(b.reservationEntryId, { idempotencyKey: workflowIdempotencyKey(workflowId, 'compensate'), reason: `${failure.code}: ${failure.reason}`.slice(0, 500) }, c);
      compensation = 'voided';
    }
    const done = await updateBuy(c, b.id, { status: 'failed', failure_code: failure.code, failure_reason: failure.reason.slice(0, 1000), compensation, failed_at: 'now' });
    await writeOutboxEvent(c, {
      type: 'basket.buy.failed',
      environment: b.environment,
      userId: b.userId,
      aggregateType: 'basket_buy',
      aggregateId: b.id,
      data: { ...common(done), failure_code: failure.code, failure_reason: done.failureReason!, compensation, failed_at: done.failedAt!.toISOString() },
    });
    return done;
  });
}

function common(b: BasketBuy) {
  return { buy_id: b.id, account_id: b.accountId, basket_code: b.basketCode, spend_asset: b.spendAsset, units: b.units, quoted_price: b.quotedPrice, max_price: b.maxPrice };
}
