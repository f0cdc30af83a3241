/**
 * Lending position records (docs/defi.md "Lending"): one per account, chain and protocol, its
 * scaled balances per market, and its operations. Reads value a position at the markets accrued
 * to now (in memory, nothing written) and the latest USD rates.
 */
import { getPool as getDb, type Queryable } from '../../db/pool';
import { latestRates } from '../../rates';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { positionHealth, warningThreshold, type LendingBalance, type PositionHealth } from './health';
import { accrueMarket, listMarkets, marketRates, marketsById, type LendingMarket } from './markets';

export interface LendingPosition {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  chain: string;
  protocol: string;
  status: 'open' | 'closed';
  warnedAt: Date | null;
  liquidations: number;
  createdAt: Date;
  closedAt: Date | null;
}

interface Row {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  chain: string;
  protocol: string;
  status: 'open' | 'closed';
  warned_at: Date | null;
  liquidations: number;
  created_at: Date;
  closed_at: Date | null;
}

const COLUMNS = 'id, environment, user_id, account_id, chain, protocol, status, warned_at, liquidations, created_at, closed_at';

const toPosition = (r: Row): LendingPosition => ({
  id: r.id,
  environment: r.environment,
  userId: r.user_id,
  accountId: r.account_id,
  chain: r.chain,
  protocol: r.protocol,
  status: r.status,
  warnedAt: r.warned_at,
  liquidations: r.liquidations,
  createdAt: r.created_at,
  closedAt: r.closed_at,
});

/** The account's open position on the chain and protocol, locked; created when `create` and none is open. */
export async function lockOpenPosition(
  c: Queryable,
  p: { id: string; environment: Environment; userId: string; accountId: string; chain: string; protocol: string },
  create: boolean,
): Promise<{ position: LendingPosition; created: boolean } | null> {
  let created = false;
  if (create) {
    const ins = await c.query(
      `INSERT INTO defi_lending_positions (id, environment, user_id, account_id, chain, protocol, status) VALUES ($1, $2, $3, $4, $5, $6, 'open')
       ON CONFLICT (environment, account_id, chain, protocol) WHERE status = 'open' DO NOTHING`,
      [p.id, p.environment, p.userId, p.accountId, p.chain, p.protocol],
    );
    created = ins.rowCount === 1;
  }
  const { rows } = await c.query<Row>(
    `SELECT ${COLUMNS} FROM defi_lending_positions WHERE environment = $1 AND account_id = $2 AND chain = $3 AND protocol = $4 AND status = 'open' FOR UPDATE`,
    [p.environment, p.accountId, p.chain, p.protocol],
  );
  return rows[0] ? { position: toPosition(rows[0]), created } : null;
}

export async function lockPositionById(c: Queryable, id: string): Promise<LendingPosition | null> {
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_lending_positions WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] ? toPosition(rows[0]) : null;
}

export async function positionBalances(c: Queryable, positionId: string): Promise<LendingBalance[]> {
  const { rows } = await c.query<{ market_id: string; s: string; d: string }>(
    'SELECT market_id, scaled_supply::text AS s, scaled_debt::text AS d FROM defi_lending_balances WHERE position_id = $1 ORDER BY market_id',
    [positionId],
  );
  return rows.map((r) => ({ marketId: r.market_id, scaledSupply: new D(r.s).toFixed(), scaledDebt: new D(r.d).toFixed() }));
}

export async function saveBalance(c: Queryable, environment: Environment, positionId: string, b: LendingBalance): Promise<void> {
  await c.query(
    `INSERT INTO defi_lending_balances (position_id, environment, market_id, scaled_supply, scaled_debt) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (position_id, market_id) DO UPDATE SET scaled_supply = EXCLUDED.scaled_supply, scaled_debt = EXCLUDED.scaled_debt, updated_at = now()`,
    [positionId, environment, b.marketId, b.scaledSupply, b.scaledDebt],
  );
}

export const isEmpty = (balances: LendingBalance[]): boolean => balances.every((b) => new D(b.scaledSupply).isZero() && new D(b.scaledDebt).isZero());

export async function closePosition(c: Queryable, id: string): Promise<LendingPosition> {
  const { rows } = await c.query<Row>(`UPDATE defi_lending_positions SET status = 'closed', closed_at = now(), updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`, [id]);
  return toPosition(rows[0]);
}

/** Sets or clears the warning mark; returns the position as stored. */
export async function setWarned(c: Queryable, id: string, at: Date | null): Promise<void> {
  await c.query('UPDATE defi_lending_positions SET warned_at = $2, updated_at = now() WHERE id = $1', [id, at]);
}

export async function countLiquidation(c: Queryable, id: string): Promise<void> {
  await c.query('UPDATE defi_lending_positions SET liquidations = liquidations + 1, updated_at = now() WHERE id = $1', [id]);
}

/** The caller's open positions on a chain and protocol (optionally one account's). */
export async function callerOpenPositions(
  q: { userId: string; environment: Environment; chain: string; protocol: string; accountId?: string | null },
  c: Queryable = getDb(),
): Promise<LendingPosition[]> {
  const { rows } = await c.query<Row>(
    `SELECT ${COLUMNS} FROM defi_lending_positions WHERE user_id = $1 AND environment = $2 AND chain = $3 AND protocol = $4 AND status = 'open'
       AND ($5::text IS NULL OR account_id = $5) ORDER BY created_at, id`,
    [q.userId, q.environment, q.chain, q.protocol, q.accountId ?? null],
  );
  return rows.map(toPosition);
}

export interface LendingPositionView extends LendingPosition {
  health: PositionHealth;
  /** Annual rates per market of the position, at its utilization now. */
  rates: Map<string, { supplyRate: string; borrowRate: string }>;
  warningThreshold: string;
}

/** The position valued with its markets accrued to `asOf` (markets given, or read without a lock). */
/**
 * The position valued with its markets accrued to `asOf`. Markets and USD rates are read here unless
 * given (a list reads them once for all its positions; an operation passes the markets it locked).
 */
export async function viewPosition(
  p: LendingPosition,
  c: Queryable,
  asOf: Date,
  markets?: Map<string, LendingMarket>,
  usdRates?: Map<string, string>,
): Promise<LendingPositionView> {
  const balances = await positionBalances(c, p.id);
  const ids = balances.map((b) => b.marketId);
  // Only the position's own markets are accrued (a list hands over the whole environment's).
  const ms = markets ? new Map(ids.filter((id) => markets.has(id)).map((id) => [id, markets.get(id)!])) : await marketsById(c, p.environment, ids);
  const accrued = new Map([...ms].map(([id, m]) => [id, accrueMarket(m, asOf)]));
  const health = positionHealth(balances, accrued, usdRates ?? (await latestRates(c)));
  const rates = new Map([...accrued].map(([id, m]) => {
    const r = marketRates(m);
    return [id, { supplyRate: r.supplyRate.toFixed(), borrowRate: r.borrowRate.toFixed() }];
  }));
  return { ...p, health, rates, warningThreshold: warningThreshold() };
}

/** The caller's position (404 for anyone else's). */
export async function findLendingPosition(id: string, owner: { userId: string; environment: Environment }, c: Queryable = getDb()): Promise<LendingPositionView> {
  const { rows } = await c.query<Row>(`SELECT ${COLUMNS} FROM defi_lending_positions WHERE id = $1 AND user_id = $2 AND environment = $3`, [id, owner.userId, owner.environment]);
  if (!rows[0]) throw new DomainError('POSITION_NOT_FOUND', 'Lending position not found', '/id');
  return viewPosition(toPosition(rows[0]), c, new Date());
}

/** The caller's positions, newest first (open ones only unless `all`), valued now. */
export async function listLendingPositions(userId: string, environment: Environment, opts: { all?: boolean; limit?: number } = {}, c: Queryable = getDb()): Promise<LendingPositionView[]> {
  const { rows } = await c.query<Row>(
    `SELECT ${COLUMNS} FROM defi_lending_positions WHERE user_id = $1 AND environment = $2 AND ($3 OR status = 'open') ORDER BY created_at DESC, id DESC LIMIT $4`,
    [userId, environment, opts.all ?? false, opts.limit ?? 100],
  );
  if (rows.length === 0) return [];
  // One read of the environment's markets and of the rates for the whole list (not per position).
  const markets = new Map((await listMarkets(environment, {}, c)).map((m) => [m.id, m]));
  const usdRates = await latestRates(c);
  const now = new Date();
  const out: LendingPositionView[] = [];
  for (const r of rows) out.push(await viewPosition(toPosition(r), c, now, markets, usdRates));
  return out;
}
