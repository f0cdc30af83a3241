/**
 * The lending watch (docs/defi.md "Lending"): a Temporal schedule runs it every minute
 * (./schedule.ts), at the workflow's clock. For each open position with debt it accrues the
 * markets, values the position at the latest USD rates and
 * - below the warning threshold (DEFI_LIQUIDATION_WARNING_HF, default 1.1) sends
 *   position.liquidation_warning once per descent (cleared when the factor recovers);
 * - below 1 liquidates as the protocol's outside liquidators would (Aave V2): up to the close
 *   factor (half) of the largest debt is repaid, and collateral worth that much plus the market's
 *   liquidation bonus (the borrower's penalty) is seized from the largest collateral. The liquidator
 *   takes the seized collateral as the market's receipt token, so the market's cash is unchanged.
 *   One balanced ledger entry records it: per collateral asset the market account against the
 *   liquidators' account (seized), per debt asset the liquidators' account against the market
 *   (repaid).
 * One transaction per position; a run liquidates a position at most once (keyed by the run).
 */
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { postEntry, type LineInput } from '../../ledger';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { latestRates } from '../../rates';
import { lendingLiquidationsAccount, lendingMarketAccount } from '../accounts';
import { lendingClosedData, liquidationWarningData } from './events';
import { positionHealth, warningThreshold, type LendingBalance, type PositionHealth } from './health';
import { accrueMarket, lockMarkets, saveMarket, toScaled, type LendingMarket } from './markets';
import { closePosition, countLiquidation, isEmpty, lockPositionById, positionBalances, saveBalance, setWarned, type LendingPosition } from './positions';
import { insertOperation, operationByKey, type LendingOperation } from './operations';

type Dec = InstanceType<typeof D>;

/** Share of the largest debt one liquidation may repay (Aave V2's close factor). */
export const CLOSE_FACTOR = '0.5';

export interface WatchResult {
  checked: number;
  warned: number;
  liquidated: number;
}

/** Checks every open position with debt (of one environment, or all) at `asOf`. */
export async function watchLendingPositions(input: { asOf: Date; runId: string; environment?: Environment }, c: Queryable = getDb()): Promise<WatchResult> {
  const { rows } = await c.query<{ id: string }>(
    `SELECT DISTINCT p.id FROM defi_lending_positions p JOIN defi_lending_balances b ON b.position_id = p.id
      WHERE p.status = 'open' AND b.scaled_debt > 0 AND ($1::text IS NULL OR p.environment = $1) ORDER BY p.id`,
    [input.environment ?? null],
  );
  const out: WatchResult = { checked: 0, warned: 0, liquidated: 0 };
  for (const { id } of rows) {
    const r = await checkPosition(id, input.asOf, input.runId);
    out.checked += 1;
    if (r.warned) out.warned += 1;
    if (r.liquidation) out.liquidated += 1;
  }
  return out;
}

/** One position at `asOf`: accrue, warn, liquidate. A retried run finds its liquidation by key. */
export async function checkPosition(id: string, asOf: Date, runId: string): Promise<{ warned: boolean; liquidation: LendingOperation | null }> {
  return withTransaction(async (c) => {
    const p = await lockPositionById(c, id);
    if (!p || p.status !== 'open') return { warned: false, liquidation: null };
    const key = `defi:lending:liquidation:${id}:${runId}`;
    const done = await operationByKey(c, p.environment, key);
    if (done) return { warned: false, liquidation: done };
    const balances = await positionBalances(c, id);
    const locks = await lockMarkets(c, p.environment, balances.map((b) => b.marketId));
    const markets = new Map([...locks].map(([mid, m]) => [mid, accrueMarket(m, asOf)]));
    for (const m of markets.values()) await saveMarket(c, m);
    let health: PositionHealth;
    try {
      health = positionHealth(balances, markets, await latestRates(c));
    } catch (err) {
      if (err instanceof DomainError && err.code === 'NO_PRICE') return { warned: false, liquidation: null }; // unpriced: nothing safe to judge
      throw err;
    }
    const hf = health.healthFactor;
    const threshold = warningThreshold();
    let warned = false;
    if (hf && hf.lt(threshold)) {
      if (!p.warnedAt) {
        await setWarned(c, id, asOf);
        await writeOutboxEvent(c, {
          type: 'position.liquidation_warning',
          environment: p.environment,
          userId: p.userId,
          aggregateType: 'defi_position',
          aggregateId: id,
          data: liquidationWarningData(p, health, threshold, asOf),
        });
        warned = true;
      }
    } else if (p.warnedAt) {
      await setWarned(c, id, null);
    }
    const liquidation = hf && hf.lt(1) ? await liquidate(c, p, balances, markets, health, key) : null;
    return { warned, liquidation };
  });
}

export interface LiquidationTerms {
  debt: LendingMarket;
  collateral: LendingMarket;
  repay: string;
  seize: string;
  /** The part of `seize` beyond the repaid value: the bonus the borrower pays. */
  penalty: string;
}

/** What a liquidation repays and seizes (pure), or null when it would move nothing the books can hold. */
export function liquidationTerms(h: PositionHealth, rates: Map<string, string>, closeFactor = CLOSE_FACTOR): LiquidationTerms | null {
  const largest = (vs: PositionHealth['supplied']) => vs.reduce((a, b) => (b.usdValue.gt(a.usdValue) ? b : a));
  if (h.borrowed.length === 0 || h.supplied.length === 0) return null;
  const d = largest(h.borrowed);
  const s = largest(h.supplied);
  const pDebt = new D(rates.get(d.market.asset)!);
  const pColl = new D(rates.get(s.market.asset)!);
  const bonus = new D(1).plus(s.market.liquidationBonus);
  let repay: Dec = new D(d.amount).times(closeFactor).toDecimalPlaces(d.market.precision, D.ROUND_DOWN);
  if (repay.isZero()) repay = new D(d.amount); // dust debt: all of it
  let seize: Dec = repay.times(pDebt).times(bonus).div(pColl).toDecimalPlaces(s.market.precision, D.ROUND_DOWN);
  if (seize.gt(s.amount)) {
    // Not enough of that collateral: seize all of it and repay what it covers.
    seize = new D(s.amount);
    repay = seize.times(pColl).div(pDebt.times(bonus)).toDecimalPlaces(d.market.precision, D.ROUND_DOWN);
  }
  if (seize.isZero() || repay.isZero()) return null;
  const penalty = seize.minus(seize.div(bonus)).toDecimalPlaces(s.market.precision, D.ROUND_DOWN);
  return { debt: d.market, collateral: s.market, repay: repay.toFixed(d.market.precision), seize: seize.toFixed(s.market.precision), penalty: penalty.toFixed(s.market.precision) };
}

async function liquidate(
  c: Queryable,
  p: LendingPosition,
  balances: LendingBalance[],
  markets: Map<string, LendingMarket>,
  health: PositionHealth,
  key: string,
): Promise<LendingOperation | null> {
  const terms = liquidationTerms(health, await latestRates(c));
  if (!terms) return null;
  const { debt, collateral } = terms;
  const byMarket = new Map(balances.map((b) => [b.marketId, { ...b }]));
  const db = byMarket.get(debt.id)!;
  const debtNow = health.borrowed.find((v) => v.market.id === debt.id)!.amount;
  const cleared = terms.repay === debtNow ? new D(db.scaledDebt) : D.min(toScaled(terms.repay, debt.borrowIndex, 'down'), db.scaledDebt);
  db.scaledDebt = new D(db.scaledDebt).minus(cleared).toFixed();
  markets.set(debt.id, { ...debt, cash: new D(debt.cash).plus(terms.repay).toFixed(), scaledBorrows: D.max(0, new D(debt.scaledBorrows).minus(cleared)).toFixed() });
  const cb = byMarket.get(collateral.id)!;
  const collNow = health.supplied.find((v) => v.market.id === collateral.id)!.amount;
  const burnt = terms.seize === collNow ? new D(cb.scaledSupply) : D.min(toScaled(terms.seize, collateral.supplyIndex, 'up'), cb.scaledSupply);
  cb.scaledSupply = new D(cb.scaledSupply).minus(burnt).toFixed();

  const opId = newId('lop');
  const lines: LineInput[] = [
    { accountId: await lendingMarketAccount(p.environment, collateral, c), direction: 'debit', amount: terms.seize },
    { accountId: await lendingLiquidationsAccount(p.environment, p.chain, p.protocol, collateral.asset, c), direction: 'credit', amount: terms.seize },
    { accountId: await lendingLiquidationsAccount(p.environment, p.chain, p.protocol, debt.asset, c), direction: 'debit', amount: terms.repay },
    { accountId: await lendingMarketAccount(p.environment, debt, c), direction: 'credit', amount: terms.repay },
  ];
  const entry = await postEntry(
    {
      environment: p.environment,
      idempotencyKey: key,
      type: 'lending_liquidation',
      description: `Liquidation on ${p.protocol} ${p.chain}: ${terms.seize} ${collateral.asset} seized (penalty ${terms.penalty}) for ${terms.repay} ${debt.asset} repaid`,
      lines,
      userId: p.userId,
      metadata: { position_id: p.id, operation_id: opId, debt_market_id: debt.id, collateral_market_id: collateral.id, penalty: terms.penalty, health_factor: health.healthFactor!.toFixed() },
    },
    c,
  );
  await saveMarket(c, markets.get(debt.id)!);
  for (const b of byMarket.values()) await saveBalance(c, p.environment, p.id, b);
  const op = await insertOperation(c, {
    id: opId,
    environment: p.environment,
    positionId: p.id,
    kind: 'liquidation',
    marketId: debt.id,
    asset: debt.asset,
    amount: terms.repay,
    seizedMarketId: collateral.id,
    seizedAsset: collateral.asset,
    seizedAmount: terms.seize,
    penaltyAmount: terms.penalty,
    healthFactor: health.healthFactor!.toFixed(),
    entryId: entry.id,
    idempotencyKey: key,
  });
  await countLiquidation(c, p.id);
  if (isEmpty([...byMarket.values()])) {
    const closed = await closePosition(c, p.id);
    await writeOutboxEvent(c, { type: 'position.closed', environment: p.environment, userId: p.userId, aggregateType: 'defi_position', aggregateId: p.id, data: lendingClosedData(closed, op) });
  }
  return op;
}
