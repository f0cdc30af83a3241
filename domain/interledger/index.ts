/**
 * Interledger quotes and payments. A quote fixes send amount, fee, FX rate (from domain/rates)
 * and receive amount for a few minutes; a payment spends a quote once, through a workflow.
 */
import type pg from 'pg';
import { getAsset } from '../assets';
import { updateAssignments } from '../db/update';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DecimalMoney, formatAmount, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { latestRate } from '../rates';
import { walletAddressOf } from './stream';
import { outcomeOf, type Outcome, type OutcomeRow } from '../platform/outcome';

/** Connector fee in basis points of the send amount (rounded up to the send currency's precision). */
export const ILP_FEE_BPS = 50;

export interface IlpQuote {
  id: string;
  environment: Environment;
  userId: string;
  receiver: string;
  walletAddress: string;
  sendAmount: string;
  sendCurrency: string;
  feeAmount: string;
  receiveAmount: string;
  receiveCurrency: string;
  rate: string;
  expiresAt: Date;
  usedAt: Date | null;
  createdAt: Date;
  sendScale: number;
  receiveScale: number;
}

export interface IlpPayment extends Outcome {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  quoteId: string;
  status: 'pending' | 'reserved' | 'completed' | 'failed';
  workflowId: string;
  entryId: string | null;
  destination: string | null;
  executionCondition: string | null;
  fulfillment: string | null;
  ilpRejectCode: string | null;
  packets: Array<{ type: string; base64: string }>;
}


const QUOTE_SELECT = `SELECT q.*, s.precision AS send_scale, r.precision AS receive_scale FROM ilp_quotes q
  JOIN assets s ON s.code = q.send_currency JOIN assets r ON r.code = q.receive_currency`;

function toQuote(r: Record<string, any>): IlpQuote {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    receiver: r.receiver,
    walletAddress: r.wallet_address,
    sendAmount: formatAmount(r.send_amount, r.send_scale),
    sendCurrency: r.send_currency,
    feeAmount: formatAmount(r.fee_amount, r.send_scale),
    receiveAmount: formatAmount(r.receive_amount, r.receive_scale),
    receiveCurrency: r.receive_currency,
    rate: new DecimalMoney(r.rate).toFixed(),
    expiresAt: r.expires_at,
    usedAt: r.used_at,
    createdAt: r.created_at,
    sendScale: r.send_scale,
    receiveScale: r.receive_scale,
  };
}

function toPayment(r: Record<string, any>): IlpPayment {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    quoteId: r.quote_id,
    status: r.status,
    workflowId: r.workflow_id,
    entryId: r.entry_id,
    destination: r.destination,
    executionCondition: r.execution_condition,
    fulfillment: r.fulfillment,
    ilpRejectCode: r.ilp_reject_code,
    packets: r.packets,
    ...outcomeOf(r as OutcomeRow),
  };
}

/** Open Payments amount: integer string in minor units with its scale. */
export function openPaymentsAmount(value: string, assetCode: string, scale: number) {
  return { value: new DecimalMoney(value).times(new DecimalMoney(10).pow(scale)).toFixed(0), assetCode, assetScale: scale };
}

export function quoteTtlSeconds(): number {
  const v = parseInt(process.env.ILP_QUOTE_TTL_SECONDS ?? '300', 10);
  return Number.isFinite(v) && v > 0 ? v : 300;
}

export async function createQuote(input: { userId: string; environment: Environment; sendAmount: string; sendCurrency: string; receiveCurrency: string; receiver: string }): Promise<IlpQuote> {
  const send = await getAsset(input.sendCurrency);
  if (!send) throw new DomainError('UNKNOWN_ASSET', `Asset ${input.sendCurrency} is not supported`, '/send_currency');
  const recv = await getAsset(input.receiveCurrency);
  if (!recv) throw new DomainError('UNKNOWN_ASSET', `Asset ${input.receiveCurrency} is not supported`, '/receive_currency');
  const sendAmount = parseRequestAmount(input.sendAmount, send, '/send_amount');
  const wallet = walletAddressOf(input.receiver);
  if (!wallet) throw new DomainError('INVALID_RECEIVER', 'receiver must be a payment pointer ($wallet.example/alice) or an https wallet address', '/receiver');
  const [sr, rr] = await Promise.all([latestRate(send.code), latestRate(recv.code)]);
  if (!sr || !rr) throw new DomainError('NO_RATE', `No exchange rate between ${send.code} and ${recv.code}`, '/receive_currency');
  const rate = new DecimalMoney(sr.rate).div(rr.rate).toDecimalPlaces(12, DecimalMoney.ROUND_HALF_EVEN);
  const fee = new DecimalMoney(sendAmount).times(ILP_FEE_BPS).div(10000).toDecimalPlaces(send.precision, DecimalMoney.ROUND_UP);
  // The receiver gets at least what is quoted: round the delivered amount down.
  const receive = new DecimalMoney(sendAmount).minus(fee).times(rate).toDecimalPlaces(recv.precision, DecimalMoney.ROUND_DOWN);
  if (receive.lte(0)) throw new DomainError('AMOUNT_TOO_SMALL', 'send_amount is too small to deliver anything after fees', '/send_amount');
  const { rows } = await getPool().query(
    `WITH q AS (INSERT INTO ilp_quotes (id, environment, user_id, receiver, wallet_address, send_amount, send_currency, fee_amount, receive_amount, receive_currency, rate, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now() + make_interval(secs => $12)) RETURNING *)
     SELECT q.*, s.precision AS send_scale, r.precision AS receive_scale FROM q JOIN assets s ON s.code = q.send_currency JOIN assets r ON r.code = q.receive_currency`,
    [newId('ilpq'), input.environment, input.userId, input.receiver, wallet, sendAmount, send.code, fee.toFixed(), receive.toFixed(), recv.code, rate.toFixed(), quoteTtlSeconds()],
  );
  return toQuote(rows[0]);
}

export async function getQuote(id: string, client: Queryable = getPool()): Promise<IlpQuote | null> {
  const { rows } = await client.query(`${QUOTE_SELECT} WHERE q.id = $1`, [id]);
  return rows[0] ? toQuote(rows[0]) : null;
}

export const ilpWorkflowId = (id: string) => `ilp-payment-${id}`;

/**
 * Spends a quote: it must be the caller's (404), unexpired (422 QUOTE_EXPIRED) and unused
 * (422 QUOTE_ALREADY_USED, like bridge and swap quotes: 409 is kept for idempotency conflicts);
 * the account must be the caller's and hold the send currency.
 */
export async function createIlpPayment(input: { userId: string; environment: Environment; quoteId: string; accountId: string }): Promise<IlpPayment> {
  return withTransaction(async (c) => {
    const { rows: qr } = await c.query(`${QUOTE_SELECT} WHERE q.id = $1 FOR UPDATE OF q`, [input.quoteId]);
    const q = qr[0] ? toQuote(qr[0]) : null;
    if (!q || q.userId !== input.userId || q.environment !== input.environment) throw new DomainError('NOT_FOUND', `Quote ${input.quoteId} not found`, '/quote_id');
    if (q.usedAt) throw new DomainError('QUOTE_ALREADY_USED', 'This quote has already been paid', '/quote_id');
    const { rows: expired } = await c.query<{ expired: boolean }>('SELECT $1::timestamptz <= now() AS expired', [q.expiresAt]);
    if (expired[0].expired) throw new DomainError('QUOTE_EXPIRED', `The quote expired at ${q.expiresAt.toISOString()}; request a new one`, '/quote_id');
    const { rows: acct } = await c.query<{ user_id: string; environment: string; status: string }>('SELECT user_id, environment, status FROM accounts WHERE id = $1', [input.accountId]);
    if (!acct[0] || acct[0].user_id !== input.userId || acct[0].environment !== input.environment) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`, '/account_id');
    if (acct[0].status !== 'active') throw new DomainError(`ACCOUNT_${acct[0].status.toUpperCase()}`, `The account is ${acct[0].status}`, '/account_id');
    await c.query('UPDATE ilp_quotes SET used_at = now() WHERE id = $1', [q.id]);
    const id = newId('ilpp');
    const { rows } = await c.query(
      `INSERT INTO ilp_payments (id, environment, user_id, account_id, quote_id, status, workflow_id) VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING *`,
      [id, input.environment, input.userId, input.accountId, q.id, ilpWorkflowId(id)],
    );
    const p = toPayment(rows[0]);
    await emitIlpEvent(c, p, 'interledger.payment_created');
    return p;
  });
}

export async function emitIlpEvent(c: Queryable, p: IlpPayment, type: string, extra: Record<string, unknown> = {}) {
  await writeOutboxEvent(c, { type, environment: p.environment, userId: p.userId, aggregateType: 'ilp_payment', aggregateId: p.id, data: { payment_id: p.id, account_id: p.accountId, quote_id: p.quoteId, status: p.status, ...extra } });
}

export async function getIlpPayment(id: string, client: Queryable = getPool()): Promise<IlpPayment | null> {
  const { rows } = await client.query('SELECT * FROM ilp_payments WHERE id = $1', [id]);
  return rows[0] ? toPayment(rows[0]) : null;
}

export async function lockIlpPayment(c: pg.PoolClient, id: string): Promise<IlpPayment> {
  const { rows } = await c.query('SELECT * FROM ilp_payments WHERE id = $1 FOR UPDATE', [id]);
  if (!rows[0]) throw new DomainError('PAYMENT_NOT_FOUND', `payment ${id} not found`);
  return toPayment(rows[0]);
}

export async function updateIlpPayment(c: Queryable, id: string, fields: Record<string, unknown>): Promise<IlpPayment> {
  const { sets, values } = updateAssignments(id, fields);
  const { rows } = await c.query(`UPDATE ilp_payments SET ${sets} WHERE id = $1 RETURNING *`, values);
  return toPayment(rows[0]);
}
