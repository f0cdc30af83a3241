/**
 * Bridge transfers: persistence, history and the bridge.* events. Money moves only in the
 * workflow's activities (activities/crosschain), through the ledger.
 *
 * Transfer states (docs/crosschain.md):
 *   pending -> reserved -> source_submitted -> source_finalized -> attested
 *           -> destination_submitted -> completed
 *   any state before completed -> failed (reservation voided; reason recorded)
 */
import type pg from 'pg';
import type { BridgeRoutePrice } from './quotes';
import { updateAssignments } from '../db/update';
import { custodyAddress } from '../chains/custody';
import { getPool, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney, formatAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import type { BridgeProtocolId } from './bridges';

export type BridgeStatus = 'pending' | 'reserved' | 'source_submitted' | 'source_finalized' | 'attested' | 'destination_submitted' | 'completed' | 'failed';

export interface BridgeTransfer extends BridgeRoutePrice {
  accountId: string;
  quoteId: string;
  minReceiveAmount: string;
  slippageTolerance: string;
  senderAddress: string;
  recipientAddress: string;
  status: BridgeStatus;
  workflowId: string;
  deadlineAt: Date;
  estimatedCompletionAt: Date;
  reservationEntryId: string | null;
  settlementEntryId: string | null;
  sourceTxKind: string | null;
  sourceTxHash: string | null;
  sourceBlock: number | null;
  attestation: Record<string, unknown> | null;
  destinationTxKind: string | null;
  destinationTxHash: string | null;
  destinationBlock: number | null;
  failureCode: string | null;
  failureReason: string | null;
  compensation: 'voided' | 'reversed' | null;
  recoveryRequired: boolean;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
  failedAt: Date | null;
}


export interface TransferRow {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  quote_id: string;
  protocol: BridgeProtocolId;
  source_chain: string;
  destination_chain: string;
  token: string;
  destination_token: string;
  asset_code: string;
  amount: string;
  fee_amount: string;
  receive_amount: string;
  min_receive_amount: string;
  slippage_tolerance: string;
  sender_address: string;
  recipient_address: string;
  status: BridgeStatus;
  workflow_id: string;
  deadline_at: Date;
  estimated_completion_at: Date;
  reservation_entry_id: string | null;
  settlement_entry_id: string | null;
  source_tx_kind: string | null;
  source_tx_hash: string | null;
  source_block: string | null;
  attestation: Record<string, unknown> | null;
  destination_tx_kind: string | null;
  destination_tx_hash: string | null;
  destination_block: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  compensation: 'voided' | 'reversed' | null;
  recovery_required: boolean;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  failed_at: Date | null;
  precision: number;
}


export function toTransfer(r: TransferRow): BridgeTransfer {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    quoteId: r.quote_id,
    protocol: r.protocol,
    sourceChain: r.source_chain,
    destinationChain: r.destination_chain,
    token: r.token,
    destinationToken: r.destination_token,
    assetCode: r.asset_code,
    amount: formatAmount(r.amount, r.precision),
    feeAmount: formatAmount(r.fee_amount, r.precision),
    receiveAmount: formatAmount(r.receive_amount, r.precision),
    minReceiveAmount: formatAmount(r.min_receive_amount, r.precision),
    slippageTolerance: new DecimalMoney(r.slippage_tolerance).toFixed(),
    senderAddress: r.sender_address,
    recipientAddress: r.recipient_address,
    status: r.status,
    workflowId: r.workflow_id,
    deadlineAt: r.deadline_at,
    estimatedCompletionAt: r.estimated_completion_at,
    reservationEntryId: r.reservation_entry_id,
    settlementEntryId: r.settlement_entry_id,
    sourceTxKind: r.source_tx_kind,
    sourceTxHash: r.source_tx_hash,
    sourceBlock: r.source_block === null ? null : Number(r.source_block),
    attestation: r.attestation,
    destinationTxKind: r.destination_tx_kind,
    destinationTxHash: r.destination_tx_hash,
    destinationBlock: r.destination_block === null ? null : Number(r.destination_block),
    failureCode: r.failure_code,
    failureReason: r.failure_reason,
    compensation: r.compensation,
    recoveryRequired: r.recovery_required,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    completedAt: r.completed_at,
    failedAt: r.failed_at,
  };
}

const SELECT = 'SELECT t.*, a.precision FROM bridge_transfers t JOIN assets a ON a.code = t.asset_code';

export const bridgeWorkflowId = (id: string) => `bridge-${id}`;

/**
 * Whether a bridge delivers outside the platform: any recipient but the account's own custody
 * address on the destination chain (addresses are stored normalised, EVM checksummed). Such a
 * bridge is a withdrawal: the Travel Rule applies and the delivered amount leaves the customer's
 * books (to the settlement account) instead of crediting their destination-chain book; money
 * sent to another platform customer's address reaches them only as a real inbound deposit.
 */
export function deliversOutsidePlatform(t: Pick<BridgeTransfer, 'accountId' | 'destinationChain' | 'recipientAddress'>): boolean {
  return t.recipientAddress !== custodyAddress(t.accountId, t.destinationChain);
}

function eventData(t: BridgeTransfer) {
  return {
    bridge_tx_id: t.id,
    quote_id: t.quoteId,
    account_id: t.accountId,
    status: t.status,
    bridge_protocol: t.protocol,
    source_chain: t.sourceChain,
    destination_chain: t.destinationChain,
    token: t.token,
    asset_code: t.assetCode,
    amount: t.amount,
    fee_amount: t.feeAmount,
    estimated_receive_amount: t.receiveAmount,
    sender_address: t.senderAddress,
    recipient_address: t.recipientAddress,
    source_tx_hash: t.sourceTxHash,
    destination_tx_hash: t.destinationTxHash,
    workflow_id: t.workflowId,
  };
}

/** History row, plus the bridge.* outbox event for initiated / completed / failed, in the caller's transaction. */
/** The statuses a bridge's history already holds among `statuses` (a retried step finds what its first run wrote). */
export async function bridgeEventsSeen(c: Queryable, transferId: string, statuses: readonly string[]): Promise<Set<string>> {
  const { rows } = await c.query<{ status: string }>('SELECT DISTINCT status FROM bridge_transfer_events WHERE transfer_id = $1 AND status = ANY($2::text[])', [transferId, statuses]);
  return new Set(rows.map((r) => r.status));
}

export async function recordBridgeEvent(c: Queryable, t: BridgeTransfer, status: string, detail: Record<string, unknown> = {}): Promise<void> {
  await c.query('INSERT INTO bridge_transfer_events (id, transfer_id, status, detail) VALUES ($1, $2, $3, $4)', [newId('bte'), t.id, status, JSON.stringify(detail)]);
  const type = status === 'pending' ? 'bridge.initiated' : status === 'completed' ? 'bridge.completed' : status === 'failed' ? 'bridge.failed' : null;
  if (!type) return;
  const extra =
    type === 'bridge.completed'
      ? { settlement_entry_id: t.settlementEntryId, received_amount: t.receiveAmount, completed_at: t.completedAt?.toISOString() ?? null }
      : type === 'bridge.failed'
        ? { failure_code: t.failureCode, failure_reason: t.failureReason, compensation: t.compensation, recovery_required: t.recoveryRequired }
        : { deadline_at: t.deadlineAt.toISOString(), estimated_completion_at: t.estimatedCompletionAt.toISOString() };
  await writeOutboxEvent(c, { type, environment: t.environment, userId: t.userId, aggregateType: 'bridge_transfer', aggregateId: t.id, data: { ...eventData(t), ...extra } });
}

export async function getBridgeTransfer(id: string, scope: { userId?: string; environment?: Environment } = {}, client: Queryable = getPool()): Promise<BridgeTransfer | null> {
  const { rows } = await client.query<TransferRow>(`${SELECT} WHERE t.id = $1`, [id]);
  const r = rows[0];
  if (!r) return null;
  if (scope.userId && r.user_id !== scope.userId) return null;
  if (scope.environment && r.environment !== scope.environment) return null;
  return toTransfer(r);
}

export async function bridgeHistory(id: string, client: Queryable = getPool()): Promise<Array<{ status: string; detail: Record<string, unknown>; occurredAt: Date }>> {
  const { rows } = await client.query<{ status: string; detail: Record<string, unknown>; occurred_at: Date }>(
    'SELECT status, detail, occurred_at FROM bridge_transfer_events WHERE transfer_id = $1 ORDER BY seq',
    [id],
  );
  return rows.map((r) => ({ status: r.status, detail: r.detail, occurredAt: r.occurred_at }));
}

export async function lockBridgeTransfer(c: pg.PoolClient, id: string): Promise<BridgeTransfer> {
  const { rows } = await c.query<TransferRow>(`${SELECT} WHERE t.id = $1 FOR UPDATE OF t`, [id]);
  if (!rows[0]) throw new DomainError('BRIDGE_TRANSFER_NOT_FOUND', `bridge transfer ${id} not found`);
  return toTransfer(rows[0]);
}

type Fields = Partial<{
  status: BridgeStatus;
  reservation_entry_id: string;
  settlement_entry_id: string;
  source_tx_kind: string;
  source_tx_hash: string;
  source_block: number;
  attestation: string;
  destination_tx_kind: string;
  destination_tx_hash: string;
  destination_block: number;
  failure_code: string;
  failure_reason: string;
  compensation: string;
  recovery_required: boolean;
  completed_at: 'now';
  failed_at: 'now';
}>;

export async function updateBridgeTransfer(c: Queryable, id: string, fields: Fields): Promise<BridgeTransfer> {
  const { sets, values } = updateAssignments(id, fields);
  const { rows } = await c.query<TransferRow>(
    `WITH t AS (UPDATE bridge_transfers SET ${sets} WHERE id = $1 RETURNING *)
     SELECT t.*, a.precision FROM t JOIN assets a ON a.code = t.asset_code`,
    values,
  );
  return toTransfer(rows[0]);
}

/** Bridge transfers of a user still on their way (not completed or failed), for the portfolio. */
export async function inFlightBridges(userId: string, environment: Environment, client: Queryable = getPool()): Promise<BridgeTransfer[]> {
  const { rows } = await client.query<TransferRow>(
    `${SELECT} WHERE t.user_id = $1 AND t.environment = $2 AND t.status NOT IN ('completed', 'failed') ORDER BY t.created_at`,
    [userId, environment],
  );
  return rows.map(toTransfer);
}
