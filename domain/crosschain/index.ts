/**
 * Bridge quotes and bridge transfers: persistence, history, events and the checks made before a
 * transfer's workflow starts. Money moves only in the workflow's activities
 * (activities/crosschain), through the ledger.
 *
 * Transfer states (docs/crosschain.md):
 *   pending -> reserved -> source_submitted -> source_finalized -> attested
 *           -> destination_submitted -> completed
 *   any state before completed -> failed (reservation voided; reason recorded)
 */
import type pg from 'pg';
import { validateAddress } from '../chains/addresses';
import { payingAccountCandidates } from '../chains/books';
import { custodyAddress } from '../chains/custody';
import { updateAssignments } from '../db/update';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney, formatAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { amountRefusal, compareProtocols, getProtocol, PROTOCOLS, resolveRoute, type BridgeOffer, type BridgeProtocolId } from './bridges';

export * from './bridges';

/** Quotes hold their price this long (BRIDGE_QUOTE_TTL_SECONDS, default 120). */
export function quoteTtlSeconds(): number {
  const n = Number.parseInt(process.env.BRIDGE_QUOTE_TTL_SECONDS ?? '', 10);
  return Number.isFinite(n) && n > 0 ? n : 120;
}

export type BridgeStatus = 'pending' | 'reserved' | 'source_submitted' | 'source_finalized' | 'attested' | 'destination_submitted' | 'completed' | 'failed';

export interface BridgeQuote {
  id: string;
  environment: Environment;
  userId: string;
  protocol: BridgeProtocolId;
  sourceChain: string;
  destinationChain: string;
  token: string;
  destinationToken: string;
  assetCode: string;
  amount: string;
  feeAmount: string;
  receiveAmount: string;
  exchangeRate: string;
  estimatedDurationSeconds: number;
  feeBreakdown: BridgeOffer['feeBreakdown'];
  alternatives: Array<{ bridge_protocol: BridgeProtocolId; estimated_receive_amount: string; fee_amount: string; estimated_duration_seconds: number }>;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
}

interface QuoteRow {
  id: string;
  environment: Environment;
  user_id: string;
  protocol: BridgeProtocolId;
  source_chain: string;
  destination_chain: string;
  token: string;
  destination_token: string;
  asset_code: string;
  amount: string;
  fee_amount: string;
  receive_amount: string;
  exchange_rate: string;
  estimated_duration_seconds: number;
  fee_breakdown: BridgeOffer['feeBreakdown'];
  alternatives: BridgeQuote['alternatives'];
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
  precision: number;
}

function toQuote(r: QuoteRow): BridgeQuote {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    protocol: r.protocol,
    sourceChain: r.source_chain,
    destinationChain: r.destination_chain,
    token: r.token,
    destinationToken: r.destination_token,
    assetCode: r.asset_code,
    amount: formatAmount(r.amount, r.precision),
    feeAmount: formatAmount(r.fee_amount, r.precision),
    receiveAmount: formatAmount(r.receive_amount, r.precision),
    exchangeRate: new DecimalMoney(r.exchange_rate).toFixed(8),
    estimatedDurationSeconds: r.estimated_duration_seconds,
    feeBreakdown: r.fee_breakdown,
    alternatives: r.alternatives,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    createdAt: r.created_at,
  };
}

export interface QuoteInput {
  userId: string;
  environment: Environment;
  sourceChain: unknown;
  destinationChain: unknown;
  token: unknown;
  amount: unknown;
  /** Chosen protocol; without it the best offer (most received, then fastest). */
  protocol?: unknown;
  protocolPointer?: string;
  now: Date;
}

/**
 * Prices the route with every protocol and stores the chosen offer with the others as
 * alternatives. Refusals are 422 with a pointer: unknown chain/token, same chain, route no
 * protocol (or not the preferred one) serves, amount below the minimum or above the liquidity.
 */
export async function createBridgeQuote(input: QuoteInput): Promise<BridgeQuote> {
  const ptr = input.protocolPointer ?? '/preferred_bridge';
  const preferred = input.protocol === undefined || input.protocol === null ? null : getProtocol(input.protocol, ptr);
  const route = await resolveRoute(input.sourceChain, input.destinationChain, input.token);
  const { rows } = await compareProtocols(route, input.amount);
  const chosen = preferred ? rows.find((r) => r.protocol === preferred.id)! : rows[0];
  if (!chosen.offer) {
    const served = rows.filter((r) => r.offer).map((r) => r.protocol);
    throw new DomainError('UNSUPPORTED_ROUTE',
      `${chosen.reason}${served.length ? `; this route is served by ${served.join(', ')}` : `; no bridge serves ${route.source.id} -> ${route.destination.id} for ${route.assetCode}`}`,
      preferred ? ptr : '/destination_chain',
    );
  }
  if (!chosen.supported) {
    const bad = amountRefusal(chosen.offer)!;
    throw new DomainError(bad.code, bad.message, '/amount');
  }
  const alternatives = rows
    .filter((r) => r.supported && r.protocol !== chosen.protocol)
    .map((r) => ({
      bridge_protocol: r.protocol,
      estimated_receive_amount: r.offer!.receiveAmount,
      fee_amount: r.offer!.feeAmount,
      estimated_duration_seconds: r.offer!.estimatedDurationSeconds,
    }));
  const o = chosen.offer;
  const { rows: saved } = await getPool().query<QuoteRow>(
    `WITH q AS (
       INSERT INTO bridge_quotes (id, environment, user_id, protocol, source_chain, destination_chain, token, destination_token, asset_code, amount,
                                  fee_amount, receive_amount, exchange_rate, estimated_duration_seconds, fee_breakdown, alternatives, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING *)
     SELECT q.*, a.precision FROM q JOIN assets a ON a.code = q.asset_code`,
    [
      newId('bq'),
      input.environment,
      input.userId,
      o.protocol,
      route.source.id,
      route.destination.id,
      route.sourceToken.symbol,
      route.destinationToken.symbol,
      route.assetCode,
      o.amount,
      o.feeAmount,
      o.receiveAmount,
      o.exchangeRate,
      o.estimatedDurationSeconds,
      JSON.stringify(o.feeBreakdown),
      JSON.stringify(alternatives),
      new Date(input.now.getTime() + quoteTtlSeconds() * 1000),
      input.now,
    ],
  );
  return toQuote(saved[0]);
}

export async function getBridgeQuote(id: string, client: Queryable = getPool()): Promise<BridgeQuote | null> {
  const { rows } = await client.query<QuoteRow>('SELECT q.*, a.precision FROM bridge_quotes q JOIN assets a ON a.code = q.asset_code WHERE q.id = $1', [id]);
  return rows[0] ? toQuote(rows[0]) : null;
}

// ---------------------------------------------------------------------------------------------
// Transfers
// ---------------------------------------------------------------------------------------------

export interface BridgeTransfer {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  quoteId: string;
  protocol: BridgeProtocolId;
  sourceChain: string;
  destinationChain: string;
  token: string;
  destinationToken: string;
  assetCode: string;
  amount: string;
  feeAmount: string;
  receiveAmount: string;
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

interface TransferRow {
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

function toTransfer(r: TransferRow): BridgeTransfer {
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

/** The record the API shows (spec: Bridge transfer) plus what the platform adds. */
export function toPublicBridgeTransfer(t: BridgeTransfer) {
  return {
    bridge_tx_id: t.id,
    quote_id: t.quoteId,
    status: t.status,
    source_chain: t.sourceChain,
    destination_chain: t.destinationChain,
    token: t.token,
    bridge_protocol: t.protocol,
    source_tx_hash: t.sourceTxHash,
    destination_tx_hash: t.destinationTxHash,
    sender_address: t.senderAddress,
    recipient_address: t.recipientAddress,
    amount: t.amount,
    created_at: t.createdAt.toISOString(),
    estimated_completion_at: t.estimatedCompletionAt.toISOString(),
    account_id: t.accountId,
    asset_code: t.assetCode,
    destination_token: t.destinationToken,
    fee_amount: t.feeAmount,
    fee_currency: t.token,
    estimated_receive_amount: t.receiveAmount,
    min_receive_amount: t.minReceiveAmount,
    slippage_tolerance: t.slippageTolerance,
    deadline_at: t.deadlineAt.toISOString(),
    workflow_id: t.workflowId,
    source_tx_kind: t.sourceTxKind,
    destination_tx_kind: t.destinationTxKind,
    attestation: t.attestation,
    failure: t.failureCode ? { code: t.failureCode, reason: t.failureReason ?? '' } : null,
    compensation: t.compensation,
    recovery_required: t.recoveryRequired,
    completed_at: t.completedAt?.toISOString() ?? null,
    failed_at: t.failedAt?.toISOString() ?? null,
  };
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

export interface InitiateInput {
  userId: string;
  environment: Environment;
  quoteId: string;
  accountId?: string | null;
  senderAddress?: string | null;
  recipientAddress?: string | null;
  slippageTolerance?: number;
  deadlineMinutes?: number;
  now: Date;
}

const SLIPPAGE_MAX = 0.5;

/**
 * Spends the quote (once) and records the transfer as pending. Which account pays: account_id
 * when given (the caller's, else 404), otherwise the caller's oldest active account whose book
 * of the token on the source chain has the amount available. Addresses default to the account's
 * custodial address on each chain. The caller starts the workflow.
 */
export async function initiateBridgeTransfer(input: InitiateInput): Promise<BridgeTransfer> {
  const slippage = input.slippageTolerance ?? 0.005;
  if (typeof slippage !== 'number' || !Number.isFinite(slippage) || slippage < 0 || slippage > SLIPPAGE_MAX) {
    throw new DomainError('INVALID_SLIPPAGE', `slippage_tolerance must be a fraction between 0 and ${SLIPPAGE_MAX}`, '/slippage_tolerance');
  }
  return withTransaction(async (c) => {
    const { rows: qr } = await c.query<QuoteRow>(
      'SELECT q.*, a.precision FROM bridge_quotes q JOIN assets a ON a.code = q.asset_code WHERE q.id = $1 FOR UPDATE OF q',
      [input.quoteId],
    );
    // Another user's quote does not exist for the caller.
    if (!qr[0] || qr[0].user_id !== input.userId || qr[0].environment !== input.environment) {
      throw new DomainError('QUOTE_NOT_FOUND', `quote ${input.quoteId} not found`, '/quote_id');
    }
    const q = toQuote(qr[0]);
    if (q.usedAt) throw new DomainError('QUOTE_ALREADY_USED', `quote ${q.id} was already used`, '/quote_id');
    if (q.expiresAt.getTime() <= input.now.getTime()) throw new DomainError('QUOTE_EXPIRED', `quote ${q.id} expired at ${q.expiresAt.toISOString()}`, '/quote_id');
    const deadlineMinutes = input.deadlineMinutes ?? Math.max(60, Math.ceil((q.estimatedDurationSeconds * 3) / 60));
    if (!Number.isInteger(deadlineMinutes) || deadlineMinutes < 1 || deadlineMinutes > 7 * 24 * 60) {
      throw new DomainError('INVALID_DEADLINE', 'deadline_minutes must be an integer from 1 to 10080', '/deadline_minutes');
    }
    if (deadlineMinutes * 60 < q.estimatedDurationSeconds) {
      throw new DomainError('DEADLINE_TOO_SHORT', `${q.protocol} needs about ${q.estimatedDurationSeconds} s on this route; deadline_minutes is shorter`, '/deadline_minutes');
    }

    const candidates = await payingAccountCandidates(
      { userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: q.assetCode, chain: q.sourceChain },
      c,
    );
    const funded = candidates.find((a) => new DecimalMoney(a.available ?? '0').gte(q.amount));
    if (!funded) {
      throw new DomainError('INSUFFICIENT_FUNDS',
        `${input.accountId ? `account ${input.accountId} does not hold` : 'no account of yours holds'} ${q.amount} ${q.token} available on ${q.sourceChain}`,
        '/amount',
      );
    }
    const accountId = funded.accountId;
    const sender = validateAddress(q.sourceChain, input.senderAddress ?? custodyAddress(accountId, q.sourceChain), '/sender_address');
    const recipient = validateAddress(q.destinationChain, input.recipientAddress ?? custodyAddress(accountId, q.destinationChain), '/recipient_address');

    const used = await c.query('UPDATE bridge_quotes SET used_at = $2 WHERE id = $1 AND used_at IS NULL', [q.id, input.now]);
    if (used.rowCount === 0) throw new DomainError('QUOTE_ALREADY_USED', `quote ${q.id} was already used`, '/quote_id');
    const precision = qr[0].precision;
    const minReceive = new DecimalMoney(q.receiveAmount).times(new DecimalMoney(1).minus(slippage)).toDecimalPlaces(precision, DecimalMoney.ROUND_DOWN).toFixed(precision);
    const id = newId('btx');
    const { rows } = await c.query<TransferRow>(
      `WITH t AS (
         INSERT INTO bridge_transfers (id, environment, user_id, account_id, quote_id, protocol, source_chain, destination_chain, token, destination_token, asset_code,
                                       amount, fee_amount, receive_amount, min_receive_amount, slippage_tolerance, sender_address, recipient_address, status,
                                       workflow_id, deadline_at, estimated_completion_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'pending', $19, $20, $21, $22, $22) RETURNING *)
       SELECT t.*, a.precision FROM t JOIN assets a ON a.code = t.asset_code`,
      [
        id,
        input.environment,
        input.userId,
        accountId,
        q.id,
        q.protocol,
        q.sourceChain,
        q.destinationChain,
        q.token,
        q.destinationToken,
        q.assetCode,
        q.amount,
        q.feeAmount,
        q.receiveAmount,
        minReceive,
        slippage,
        sender,
        recipient,
        bridgeWorkflowId(id),
        new Date(input.now.getTime() + deadlineMinutes * 60_000),
        new Date(input.now.getTime() + q.estimatedDurationSeconds * 1000),
        input.now,
      ],
    );
    const t = toTransfer(rows[0]);
    await recordBridgeEvent(c, t, 'pending', { quote_id: q.id, account_id: accountId, deadline_minutes: deadlineMinutes });
    return t;
  });
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

export { PROTOCOLS };
