/**
 * Payment intents (docs/mobile.md): the payer's app states what it will pay whom, then confirms.
 * States, as in the well-known model: requires_confirmation → processing → succeeded, or
 * requires_confirmation → canceled | expired. A confirm that the ledger refuses (insufficient
 * funds, frozen account) returns the intent to requires_confirmation with last_error, so the payer
 * may fund the account and confirm again before it expires. Any other move is 409
 * PAYMENT_INTENT_STATE_CONFLICT.
 *
 * Each intent has a workflow (workflows/payment-intent.ts) that expires it at expires_at and
 * settles it after a confirm (activities/mobile). The API changes state in one transaction and then
 * signals the workflow; the workflow also looks on its own, so a lost signal delays, never loses.
 */
import type { Principal } from '../auth/principal';
import { getAsset } from '../assets';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney as D, parseRequestAmount } from '../money/amount';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRate } from '../rates';
import { signalWorkflow } from '../temporal/signals';
import { SA } from '../temporal/search-attributes';
import { startMoneyWorkflow } from '../temporal/start';
import { payingAccount, receivingAccount, resolveRecipient } from './profiles';

export type IntentStatus = 'requires_confirmation' | 'processing' | 'succeeded' | 'canceled' | 'expired';

export interface PaymentIntent {
  id: string;
  environment: Environment;
  userId: string;
  payeeUserId: string;
  payeeName: string;
  recipient: string;
  amount: string;
  currency: string;
  description: string | null;
  status: IntentStatus;
  requiresPasskey: boolean;
  amountUsd: string;
  payerAccountId: string | null;
  payeeAccountId: string | null;
  feeAmount: string | null;
  entryId: string | null;
  workflowId: string;
  lastError: { code: string; message: string } | null;
  cancellationReason: string | null;
  expiresAt: Date;
  confirmedAt: Date | null;
  succeededAt: Date | null;
  canceledAt: Date | null;
  expiredAt: Date | null;
  createdAt: Date;
}

type Row = Record<string, any>;

const SELECT = `SELECT i.*, a.precision, u.name AS payee_name FROM payment_intents i JOIN assets a ON a.code = i.currency JOIN users u ON u.id = i.payee_user_id`;

export function toIntent(r: Row): PaymentIntent {
  const fixed = (v: string | null) => (v === null ? null : new D(v).toFixed(r.precision));
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    payeeUserId: r.payee_user_id,
    payeeName: r.payee_name,
    recipient: r.recipient,
    amount: fixed(r.amount)!,
    currency: r.currency,
    description: r.description,
    status: r.status,
    requiresPasskey: r.requires_passkey,
    amountUsd: new D(r.amount_usd).toFixed(2),
    payerAccountId: r.payer_account_id,
    payeeAccountId: r.payee_account_id,
    feeAmount: fixed(r.fee_amount),
    entryId: r.entry_id,
    workflowId: r.workflow_id,
    lastError: r.last_error_code ? { code: r.last_error_code, message: r.last_error_message } : null,
    cancellationReason: r.cancellation_reason,
    expiresAt: r.expires_at,
    confirmedAt: r.confirmed_at,
    succeededAt: r.succeeded_at,
    canceledAt: r.canceled_at,
    expiredAt: r.expired_at,
    createdAt: r.created_at,
  };
}

export const paymentIntentWorkflowId = (id: string) => `payment-intent-${id}`;

/** The event data of payment_intent.* (domain/mobile/events.ts holds the schema). */
export function intentEventData(i: PaymentIntent): Record<string, unknown> {
  return {
    payment_intent_id: i.id,
    status: i.status,
    amount: i.amount,
    currency: i.currency,
    payee_user_id: i.payeeUserId,
    description: i.description,
    expires_at: i.expiresAt.toISOString(),
    entry_id: i.entryId,
  };
}

export async function emitIntentEvent(c: Queryable, i: PaymentIntent, type: 'payment_intent.created' | 'payment_intent.completed' | 'payment_intent.expired'): Promise<void> {
  await writeOutboxEvent(c, { type, environment: i.environment, userId: i.userId, aggregateType: 'payment_intent', aggregateId: i.id, data: intentEventData(i) });
}

export async function lockIntent(c: Queryable, id: string): Promise<PaymentIntent | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE i.id = $1 FOR UPDATE OF i`, [id]);
  return rows[0] ? toIntent(rows[0]) : null;
}

async function reload(c: Queryable, id: string): Promise<PaymentIntent> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE i.id = $1`, [id]);
  return toIntent(rows[0]);
}

export async function updateIntent(c: Queryable, id: string, sets: string, values: unknown[]): Promise<PaymentIntent> {
  await c.query(`UPDATE payment_intents SET ${sets}, updated_at = now() WHERE id = $1`, [id, ...values]);
  return reload(c, id);
}

/** Its time ran out before it was paid. */
export function markIntentExpired(c: Queryable, id: string): Promise<PaymentIntent> {
  return updateIntent(c, id, `status = 'expired', expired_at = now()`, []);
}

/** The payment step posted the intent's entry: it succeeded, with that entry and fee. */
export function markIntentSucceeded(c: Queryable, id: string, entryId: string, fee: string): Promise<PaymentIntent> {
  return updateIntent(c, id, `status = 'succeeded', succeeded_at = now(), entry_id = $2, fee_amount = $3`, [entryId, fee]);
}

/** The ledger refused the payment (funds, a frozen or closed account): back to the payer to confirm again. */
export function returnIntentForConfirmation(c: Queryable, id: string, code: string, message: string): Promise<PaymentIntent> {
  return updateIntent(c, id, `status = 'requires_confirmation', last_error_code = $2, last_error_message = $3`, [code, message]);
}

export interface CreateIntentInput {
  amount: string;
  currency: string;
  recipient: string;
  description?: string;
  expires_in_minutes?: number;
}

export async function createPaymentIntent(p: Principal, b: CreateIntentInput): Promise<PaymentIntent> {
  const asset = await getAsset(String(b.currency).toUpperCase());
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${String(b.currency).slice(0, 12)} is not supported`, '/currency');
  const amount = parseRequestAmount(b.amount, asset);
  const cfg = loadConfig();
  const ttl = b.expires_in_minutes ?? cfg.paymentIntentTtlMinutes;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > 7 * 24 * 60) throw new DomainError('INVALID_EXPIRY', 'expires_in_minutes must be an integer from 1 to 10080', '/expires_in_minutes');
  const payee = await resolveRecipient(b.recipient, '/recipient', p.tenantId ?? null);
  if (payee.userId === p.userId) throw new DomainError('PAYMENT_TO_SELF', 'A payment intent pays someone else', '/recipient');
  const rate = await latestRate(asset.code);
  if (!rate) throw new DomainError('RATE_UNAVAILABLE', `No USD rate for ${asset.code}`, '/currency');
  const amountUsd = new D(amount).times(rate.rate).toDecimalPlaces(2, D.ROUND_HALF_UP);
  const id = newId('pi');
  const intent = await withTransaction(async (c) => {
    await c.query(
      `INSERT INTO payment_intents (id, environment, user_id, payee_user_id, recipient, amount, currency, description, status, requires_passkey, amount_usd, workflow_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'requires_confirmation', $9, $10, $11, now() + make_interval(mins => $12))`,
      [id, p.environment, p.userId, payee.userId, b.recipient.trim(), amount, asset.code, b.description ?? null, amountUsd.gte(cfg.mobilePasskeyThresholdUsd), amountUsd.toFixed(2), paymentIntentWorkflowId(id), ttl],
    );
    const i = await reload(c, id);
    await emitIntentEvent(c, i, 'payment_intent.created');
    return i;
  });
  await startMoneyWorkflow({
    workflowType: 'paymentIntentWorkflow',
    workflowId: intent.workflowId,
    args: [{ intentId: intent.id, ttlMs: ttl * 60_000 }],
    subject: { id: intent.id, accountIds: [], assetCode: intent.currency, amount: intent.amount, environment: intent.environment, userId: intent.userId },
    idKey: SA.paymentId,
    onStartFailed: () =>
      withTransaction(async (c) => {
        await c.query(`UPDATE payment_intents SET status = 'canceled', cancellation_reason = 'workflow_unavailable', canceled_at = now(), updated_at = now() WHERE id = $1 AND status = 'requires_confirmation'`, [intent.id]);
      }),
  }).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The payment intent could not be started; nothing will be charged. Retry later.');
  });
  return intent;
}

/** The caller's intent (payer), or the payee's view of it; anyone else: 404. */
export async function getPaymentIntent(p: Principal, id: string, c: Queryable = getPool()): Promise<PaymentIntent> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE i.id = $1 AND i.environment = $2 AND (i.user_id = $3 OR i.payee_user_id = $3)`, [id, p.environment, p.userId]);
  if (!rows[0]) throw new DomainError('PAYMENT_INTENT_NOT_FOUND', 'Payment intent not found');
  return toIntent(rows[0]);
}

export async function listPaymentIntents(p: Principal, q: { status?: IntentStatus; limit: number; offset: number }): Promise<{ items: PaymentIntent[]; total: number }> {
  const { rows } = await getPool().query<Row>(
    `${SELECT.replace('SELECT i.*', 'SELECT i.*, count(*) OVER () AS total')} WHERE i.user_id = $1 AND i.environment = $2 AND ($3::text IS NULL OR i.status = $3)
     ORDER BY i.created_at DESC, i.id DESC LIMIT $4 OFFSET $5`,
    [p.userId, p.environment, q.status ?? null, q.limit, q.offset],
  );
  return { items: rows.map(toIntent), total: rows[0] ? Number(rows[0].total) : 0 };
}

/** The payer's own intent, locked; a payee or anyone else gets 404. */
async function lockOwn(c: Queryable, p: Principal, id: string): Promise<PaymentIntent> {
  const i = await lockIntent(c, id);
  if (!i || i.userId !== p.userId || i.environment !== p.environment) throw new DomainError('PAYMENT_INTENT_NOT_FOUND', 'Payment intent not found');
  return i;
}

const conflict = (i: PaymentIntent, action: string) =>
  new DomainError('PAYMENT_INTENT_STATE_CONFLICT', `A payment intent in status ${i.status} cannot be ${action}`);

/**
 * The payer confirms: from requires_confirmation only, before expires_at; above the passkey
 * threshold only in a passkey (biometric) session. The paying account is chosen now (the one
 * named, else the payer's first account holding the amount); the workflow then moves the money.
 */
export async function confirmPaymentIntent(p: Principal, id: string, b: { account_id?: string } = {}): Promise<PaymentIntent> {
  const i = await withTransaction(async (c) => {
    const cur = await lockOwn(c, p, id);
    if (cur.status !== 'requires_confirmation') throw conflict(cur, 'confirmed');
    if (cur.expiresAt.getTime() <= Date.now()) throw new DomainError('PAYMENT_INTENT_STATE_CONFLICT', `The payment intent expired at ${cur.expiresAt.toISOString()}`);
    if (cur.requiresPasskey && !p.biometric) {
      throw new DomainError('PASSKEY_REQUIRED', `Confirming ${cur.amountUsd} USD or more needs a passkey-verified session (POST /api/v2/mobile/auth/passkey/verify)`);
    }
    const payer = await payingAccount(p.userId, p.environment, cur.currency, cur.amount, b.account_id, '/account_id', c);
    const payee = await receivingAccount(cur.payeeUserId, p.environment, '/recipient', c);
    return updateIntent(c, id, `status = 'processing', confirmed_at = now(), payer_account_id = $2, payee_account_id = $3, last_error_code = NULL, last_error_message = NULL`, [payer, payee]);
  });
  await signalWorkflow(i.workflowId, 'confirm').catch(() => false);
  return i;
}

/** The payer cancels an intent that is still waiting for confirmation. */
export async function cancelPaymentIntent(p: Principal, id: string, b: { reason?: string } = {}): Promise<PaymentIntent> {
  const i = await withTransaction(async (c) => {
    const cur = await lockOwn(c, p, id);
    if (cur.status !== 'requires_confirmation') throw conflict(cur, 'canceled');
    return updateIntent(c, id, `status = 'canceled', canceled_at = now(), cancellation_reason = $2`, [b.reason ?? 'requested_by_customer']);
  });
  await signalWorkflow(i.workflowId, 'cancel').catch(() => false);
  return i;
}
