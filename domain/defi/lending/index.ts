/**
 * Lending on the money markets (docs/defi.md "Lending"): supply, withdraw, borrow and repay. Each
 * is ONE database transaction: the position locked (created by a first supply), every market it
 * touches locked and accrued to now, the rule checked on the balances after the change (borrowing
 * power for a borrow, health factor ≥ 1 for a withdrawal), one balanced ledger entry (the
 * customer's chain book against the market's account), the balances, the market, the operation
 * record and the position's events. As for liquidity, the sandbox chain executes no contract code
 * (the transaction is the execution); production needs a configured chain adapter.
 */
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { writeOutboxEvent } from '../../events/outbox';
import { clientIdempotencyKey, postEntry, type LineInput } from '../../ledger';
import { getAsset } from '../../assets';
import { DecimalMoney as D, parseRequestAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { latestRates } from '../../rates';
import { ensureChainLedgerAccount, lendingMarketAccount, resolveAccount } from '../accounts';
import { chainAdapterOrUnavailable } from '../gas';
import { positionHealth, warningThreshold, type LendingBalance } from './health';
import { accrueMarket, debtBalance, getMarket, listMarkets, lockMarkets, saveMarket, supplyBalance, toScaled, type LendingMarket } from './markets';
import { callerOpenPositions, closePosition, findLendingPosition, isEmpty, lockOpenPosition, lockPositionById, positionBalances, saveBalance, setWarned, viewPosition, type LendingPosition, type LendingPositionView } from './positions';
import { lendingClosedData, lendingOpenedData } from './events';
import { insertOperation, listOperations, operationByKey, type LendingOperation, type LendingOperationKind } from './operations';

export type { LendingOperation, LendingOperationKind };

export interface LendingResult {
  operation: LendingOperation;
  position: LendingPositionView;
}


export interface LendingOperationInput {
  userId: string;
  environment: Environment;
  kind: LendingOperationKind;
  marketId: unknown;
  /** A decimal string; "max" withdraws everything withdrawable or repays the whole debt. */
  amount: unknown;
  accountId?: string | null;
  idempotencyKey?: string;
}

function parseLendingAmount(kind: LendingOperationKind, v: unknown, asset: { code: string; precision: number; maxAmount: string }): string | 'max' {
  if (v === 'max' && (kind === 'withdraw' || kind === 'repay')) return 'max';
  return parseRequestAmount(v, asset);
}

/** The position the operation acts on: supply opens one when the account has none on the chain and protocol. */
async function targetAccount(input: LendingOperationInput, m: LendingMarket, amount: string | 'max'): Promise<string> {
  if (input.kind === 'supply') {
    return (await resolveAccount({ userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: m.asset, chain: m.chain, needed: amount === 'max' ? null : amount })).accountId;
  }
  const open = await callerOpenPositions({ userId: input.userId, environment: input.environment, chain: m.chain, protocol: m.protocol, accountId: input.accountId });
  if (open.length === 0) throw new DomainError('NO_POSITION', `No open lending position on ${m.protocol} ${m.chain}${input.accountId ? ' for this account' : ''}: supply collateral first`, '/market_id');
  if (open.length > 1) throw new DomainError('ACCOUNT_REQUIRED', `Several accounts have lending positions on ${m.protocol} ${m.chain}: name one with account_id`, '/account_id');
  return open[0].accountId;
}

export async function lendingOperation(input: LendingOperationInput): Promise<LendingResult> {
  const known = await getMarket(input.environment, input.marketId);
  const asset = (await getAsset(known.asset))!;
  const amount = parseLendingAmount(input.kind, input.amount, asset);
  const accountId = await targetAccount(input, known, amount);
  // After the ownership checks: another user's account is a 404 whatever the environment's chains.
  chainAdapterOrUnavailable(input.environment);
  const opId = newId('lop');
  const key = input.idempotencyKey ? clientIdempotencyKey(input.userId, `defi-lending-${input.kind}`, input.idempotencyKey) : `defi:lending:${opId}`;
  const now = new Date();

  return withTransaction(async (c) => {
    const done = await operationByKey(c, input.environment, key);
    if (done) return { operation: done, position: await viewPosition((await lockPositionById(c, done.positionId))!, c, now) };
    const locked = await lockOpenPosition(c, { id: newId('ln'), environment: input.environment, userId: input.userId, accountId, chain: known.chain, protocol: known.protocol }, input.kind === 'supply');
    if (!locked) throw new DomainError('NO_POSITION', `No open lending position on ${known.protocol} ${known.chain}: supply collateral first`, '/market_id');
    const { position, created } = locked;
    const balances = await positionBalances(c, position.id);
    const locks = await lockMarkets(c, input.environment, [known.id, ...balances.map((b) => b.marketId)]);
    const markets = new Map([...locks].map(([id, m]) => [id, accrueMarket(m, now)]));
    const m = markets.get(known.id)!;
    const bal: LendingBalance = balances.find((b) => b.marketId === m.id) ?? { marketId: m.id, scaledSupply: '0', scaledDebt: '0' };
    const change = applyOperation(input.kind, m, bal, amount);
    markets.set(m.id, change.market);
    const after = [...balances.filter((b) => b.marketId !== m.id), change.balance];
    const rates = await latestRates(c);
    const health = positionHealth(after, markets, rates);
    if (input.kind === 'borrow' && health.debtUsd.gt(health.borrowingPowerUsd)) {
      throw new DomainError('INSUFFICIENT_COLLATERAL', `Borrowing ${change.amount} ${m.asset} would take the debt to ${usd(health.debtUsd)} USD, above the borrowing power of ${usd(health.borrowingPowerUsd)} USD`, '/amount');
    }
    if (input.kind === 'withdraw' && health.healthFactor && health.healthFactor.lt(1)) {
      throw new DomainError('HEALTH_FACTOR_TOO_LOW', `Withdrawing ${change.amount} ${m.asset} would take the health factor to ${health.healthFactor.toDecimalPlaces(4, D.ROUND_DOWN).toFixed()}, below 1`, '/amount');
    }

    const book = await ensureChainLedgerAccount(c, accountId, m.asset, m.chain);
    const marketAcct = await lendingMarketAccount(input.environment, m, c);
    const intoMarket = input.kind === 'supply' || input.kind === 'repay';
    const lines: LineInput[] = [
      { accountId: intoMarket ? book : marketAcct, direction: 'debit', amount: change.amount },
      { accountId: intoMarket ? marketAcct : book, direction: 'credit', amount: change.amount },
    ];
    const entry = await postEntry(
      {
        environment: input.environment,
        idempotencyKey: key,
        type: `lending_${input.kind}`,
        description: `${LABEL[input.kind]} ${change.amount} ${m.asset} ${input.kind === 'supply' || input.kind === 'repay' ? 'to' : 'from'} ${m.protocol} on ${m.chain}`,
        lines,
        userId: input.userId,
        metadata: { position_id: position.id, operation_id: opId, market_id: m.id, chain: m.chain, protocol: m.protocol },
      },
      c,
    );
    for (const mk of markets.values()) await saveMarket(c, mk);
    await saveBalance(c, input.environment, position.id, change.balance);
    const operation = await insertOperation(c, {
      id: opId,
      environment: input.environment,
      positionId: position.id,
      kind: input.kind,
      marketId: m.id,
      asset: m.asset,
      amount: change.amount,
      seizedMarketId: null,
      seizedAsset: null,
      seizedAmount: null,
      penaltyAmount: null,
      healthFactor: health.healthFactor?.toFixed() ?? null,
      entryId: entry.id,
      idempotencyKey: key,
    });
    let current: LendingPosition = position;
    if (created) {
      await writeOutboxEvent(c, { type: 'position.opened', environment: input.environment, userId: input.userId, aggregateType: 'defi_position', aggregateId: position.id, data: lendingOpenedData(position, operation) });
    }
    if (isEmpty(after)) {
      current = await closePosition(c, position.id);
      await writeOutboxEvent(c, { type: 'position.closed', environment: input.environment, userId: input.userId, aggregateType: 'defi_position', aggregateId: position.id, data: lendingClosedData(current, operation) });
    } else if (position.warnedAt && (!health.healthFactor || health.healthFactor.gte(warningThreshold()))) {
      // Safe again: the next descent below the threshold warns again.
      await setWarned(c, position.id, null);
      current = { ...position, warnedAt: null };
    }
    return { operation, position: await viewPosition(current, c, now, markets) };
  });
}

const LABEL: Record<LendingOperationKind, string> = { supply: 'Supply of', withdraw: 'Withdrawal of', borrow: 'Borrowing of', repay: 'Repayment of' };
const usd = (v: InstanceType<typeof D>) => v.toDecimalPlaces(2, D.ROUND_HALF_EVEN).toFixed(2);

/**
 * The balance and market after the operation (pure). Scaled amounts round in the market's favour:
 * a supply credits and a repayment clears scaled units rounded down, a withdrawal burns and a
 * borrow owes them rounded up; "max" and amounts equal to the whole balance clear it exactly.
 */
export function applyOperation(kind: LendingOperationKind, m: LendingMarket, b: LendingBalance, requested: string | 'max'): { amount: string; balance: LendingBalance; market: LendingMarket } {
  const S = (x: InstanceType<typeof D>) => x.toFixed();
  switch (kind) {
    case 'supply': {
      const scaled = toScaled(requested as string, m.supplyIndex, 'down');
      if (scaled.isZero()) throw new DomainError('AMOUNT_TOO_SMALL', 'amount is too small to earn any share of the market', '/amount');
      return {
        amount: requested as string,
        balance: { ...b, scaledSupply: S(new D(b.scaledSupply).plus(scaled)) },
        market: { ...m, cash: S(new D(m.cash).plus(requested as string)), scaledSupply: S(new D(m.scaledSupply).plus(scaled)) },
      };
    }
    case 'withdraw': {
      const balance = supplyBalance(m, b.scaledSupply);
      if (new D(balance).isZero()) throw new DomainError('NO_SUPPLY', `Nothing of ${m.asset} is supplied to ${m.id}`, '/market_id');
      const amount = requested === 'max' ? balance : requested;
      if (new D(amount).gt(balance)) throw new DomainError('INSUFFICIENT_SUPPLY', `Only ${balance} ${m.asset} is supplied to ${m.id}`, '/amount');
      if (new D(amount).gt(m.cash)) throw new DomainError('INSUFFICIENT_LIQUIDITY', `The market has ${m.cash} ${m.asset} available to withdraw now`, '/amount');
      const burn = new D(amount).eq(balance) ? new D(b.scaledSupply) : D.min(toScaled(amount, m.supplyIndex, 'up'), b.scaledSupply);
      return {
        amount,
        balance: { ...b, scaledSupply: S(new D(b.scaledSupply).minus(burn)) },
        market: { ...m, cash: S(new D(m.cash).minus(amount)), scaledSupply: S(D.max(0, new D(m.scaledSupply).minus(burn))) },
      };
    }
    case 'borrow': {
      const amount = requested as string;
      if (new D(amount).gt(m.cash)) throw new DomainError('INSUFFICIENT_LIQUIDITY', `The market has ${m.cash} ${m.asset} available to borrow now`, '/amount');
      const owed = toScaled(amount, m.borrowIndex, 'up');
      return {
        amount,
        balance: { ...b, scaledDebt: S(new D(b.scaledDebt).plus(owed)) },
        market: { ...m, cash: S(new D(m.cash).minus(amount)), scaledBorrows: S(new D(m.scaledBorrows).plus(owed)) },
      };
    }
    case 'repay': {
      const debt = debtBalance(m, b.scaledDebt);
      if (new D(debt).isZero()) throw new DomainError('NO_DEBT', `Nothing of ${m.asset} is borrowed from ${m.id}`, '/market_id');
      // As the protocol does, a repayment above the debt repays the debt.
      const amount = requested === 'max' || new D(requested).gte(debt) ? debt : requested;
      const cleared = new D(amount).eq(debt) ? new D(b.scaledDebt) : D.min(toScaled(amount, m.borrowIndex, 'down'), b.scaledDebt);
      return {
        amount,
        balance: { ...b, scaledDebt: S(new D(b.scaledDebt).minus(cleared)) },
        market: { ...m, cash: S(new D(m.cash).plus(amount)), scaledBorrows: S(D.max(0, new D(m.scaledBorrows).minus(cleared))) },
      };
    }
  }
}

/** The markets (of a chain) accrued to now, with their USD price (GET /api/v2/defi/lending/markets). */
export async function lendingMarketsNow(environment: Environment, chain?: string | null): Promise<Array<{ market: LendingMarket; usdPrice: string | null }>> {
  const db = getDb();
  const [markets, rates] = await Promise.all([listMarkets(environment, { chain: chain ?? null }, db), latestRates(db)]);
  const now = new Date();
  return markets.map((m) => ({ market: accrueMarket(m, now), usdPrice: rates.get(m.asset) ?? null }));
}

/** The caller's position with its operations, newest first (404 for anyone else's). */
export async function lendingPositionWithOperations(id: string, owner: { userId: string; environment: Environment }): Promise<{ position: LendingPositionView; operations: LendingOperation[] }> {
  const position = await findLendingPosition(id, owner);
  return { position, operations: await listOperations(position.id) };
}
