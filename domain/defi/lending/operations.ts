/** The lending operation records (`lop_…`): every movement of a position with its ledger entry; the history and the answer a retried request gets. */
import { getPool as getDb, type Queryable } from '../../db/pool';
import type { Environment } from '../../platform/environment';

export type LendingOperationKind = 'supply' | 'withdraw' | 'borrow' | 'repay';

export interface LendingOperation {
  id: string;
  positionId: string;
  kind: LendingOperationKind | 'liquidation';
  marketId: string;
  asset: string;
  amount: string;
  seizedMarketId: string | null;
  seizedAsset: string | null;
  seizedAmount: string | null;
  penaltyAmount: string | null;
  healthFactor: string | null;
  entryId: string;
  createdAt: Date;
}


const OP_COLUMNS = `id, position_id, kind, market_id, asset, amount, seized_market_id, seized_asset, seized_amount, penalty_amount, health_factor, entry_id, created_at`;

interface OpRow {
  id: string;
  position_id: string;
  kind: LendingOperation['kind'];
  market_id: string;
  asset: string;
  amount: string;
  seized_market_id: string | null;
  seized_asset: string | null;
  seized_amount: string | null;
  penalty_amount: string | null;
  health_factor: string | null;
  entry_id: string;
  created_at: Date;
}

const toOperation = (r: OpRow): LendingOperation => ({
  id: r.id,
  positionId: r.position_id,
  kind: r.kind,
  marketId: r.market_id,
  asset: r.asset,
  amount: r.amount,
  seizedMarketId: r.seized_market_id,
  seizedAsset: r.seized_asset,
  seizedAmount: r.seized_amount,
  penaltyAmount: r.penalty_amount,
  healthFactor: r.health_factor,
  entryId: r.entry_id,
  createdAt: r.created_at,
});

export async function operationByKey(c: Queryable, environment: Environment, key: string): Promise<LendingOperation | null> {
  const { rows } = await c.query<OpRow>(`SELECT ${OP_COLUMNS} FROM defi_lending_operations WHERE environment = $1 AND idempotency_key = $2`, [environment, key]);
  return rows[0] ? toOperation(rows[0]) : null;
}

export async function insertOperation(
  c: Queryable,
  o: Omit<LendingOperation, 'createdAt'> & { environment: Environment; idempotencyKey: string },
): Promise<LendingOperation> {
  const { rows } = await c.query<OpRow>(
    `INSERT INTO defi_lending_operations (id, environment, position_id, kind, market_id, asset, amount, seized_market_id, seized_asset, seized_amount, penalty_amount, health_factor, entry_id, idempotency_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${OP_COLUMNS}`,
    [o.id, o.environment, o.positionId, o.kind, o.marketId, o.asset, o.amount, o.seizedMarketId, o.seizedAsset, o.seizedAmount, o.penaltyAmount, o.healthFactor, o.entryId, o.idempotencyKey],
  );
  return toOperation(rows[0]);
}

/** The caller's operations on a position, newest first. */
export async function listOperations(positionId: string, limit = 100, c: Queryable = getDb()): Promise<LendingOperation[]> {
  const { rows } = await c.query<OpRow>(`SELECT ${OP_COLUMNS} FROM defi_lending_operations WHERE position_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [positionId, limit]);
  return rows.map(toOperation);
}
