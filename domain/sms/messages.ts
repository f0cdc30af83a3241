/**
 * SMS message rows: what was paid for, where it stands with the provider, and its payment. Status
 * moves pending → sent → delivered, or to failed from either (a refused payment, a provider
 * refusal, a failed or missing delivery receipt); payment_status pending → settled → refunded, or
 * pending → failed. Only the send workflow's activities move them (activities/sms).
 */
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';

export type SmsStatus = 'pending' | 'sent' | 'delivered' | 'failed';
export type SmsPaymentStatus = 'pending' | 'settled' | 'refunded' | 'failed';

export interface SmsMessage {
  id: string;
  environment: Environment;
  ownerUserId: string | null;
  payer: string;
  paymentKey: string;
  paymentId: string | null;
  agentKeyId: string | null;
  destination: string;
  countryCode: string;
  sender: string;
  body: string;
  parts: number;
  encoding: 'GSM-7' | 'UCS-2';
  priceUsdc: string;
  status: SmsStatus;
  paymentStatus: SmsPaymentStatus;
  provider: string | null;
  providerMessageId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  workflowId: string;
  submittedAt: Date | null;
  sentAt: Date | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
  createdAt: Date;
}

const COLUMNS = `m.id, m.environment, m.owner_user_id AS "ownerUserId", m.payer, m.payment_key AS "paymentKey", m.payment_id AS "paymentId",
  m.agent_key_id AS "agentKeyId", m.destination, m.country_code AS "countryCode", m.sender, m.body, m.parts, m.encoding,
  m.price_usdc::text AS "priceUsdc", m.status, m.payment_status AS "paymentStatus", m.provider, m.provider_message_id AS "providerMessageId",
  m.failure_code AS "failureCode", m.failure_reason AS "failureReason", m.workflow_id AS "workflowId", m.submitted_at AS "submittedAt",
  m.sent_at AS "sentAt", m.delivered_at AS "deliveredAt", m.failed_at AS "failedAt", m.created_at AS "createdAt"`;

export type NewSmsMessage = Omit<SmsMessage, 'paymentId' | 'status' | 'paymentStatus' | 'provider' | 'providerMessageId' | 'failureCode' | 'failureReason' | 'submittedAt' | 'sentAt' | 'deliveredAt' | 'failedAt' | 'createdAt'>;

/** Records a paid send; a second send with the same authorization is PAYMENT_NONCE_USED. */
export async function insertSmsMessage(m: NewSmsMessage, c: Queryable = getPool()): Promise<SmsMessage> {
  const { rows } = await c.query<{ id: string }>(
    `INSERT INTO sms_messages (id, environment, owner_user_id, payer, payment_key, agent_key_id, destination, country_code, sender, body, parts, encoding,
                               price_usdc, status, payment_status, workflow_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', 'pending', $14)
     ON CONFLICT (environment, payment_key) DO NOTHING RETURNING id`,
    [m.id, m.environment, m.ownerUserId, m.payer, m.paymentKey, m.agentKeyId, m.destination, m.countryCode, m.sender, m.body, m.parts, m.encoding, m.priceUsdc, m.workflowId],
  );
  if (!rows[0]) throw new DomainError('PAYMENT_NONCE_USED', 'This authorization has already paid for a message; sign a new one');
  return (await getSmsMessage(m.id, c))!;
}

export async function getSmsMessage(id: string, c: Queryable = getPool()): Promise<SmsMessage | null> {
  const { rows } = await c.query<SmsMessage>(`SELECT ${COLUMNS} FROM sms_messages m WHERE m.id = $1`, [id]);
  return rows[0] ?? null;
}

/** The caller's message (its owner, in its environment; operators any of the environment); 404 otherwise. */
export async function findSmsMessageFor(viewer: { userId: string; environment: Environment; operator: boolean }, id: string): Promise<SmsMessage> {
  const m = await getSmsMessage(id);
  if (!m || m.environment !== viewer.environment || (!viewer.operator && m.ownerUserId !== viewer.userId)) {
    throw new DomainError('SMS_MESSAGE_NOT_FOUND', `Message ${id} not found`);
  }
  return m;
}

type Fields = Partial<{
  payment_id: string;
  status: SmsStatus;
  payment_status: SmsPaymentStatus;
  provider: string;
  provider_message_id: string;
  failure_code: string;
  failure_reason: string;
  submitted_at: Date;
  sent_at: Date;
  delivered_at: Date;
  failed_at: Date;
}>;

export async function updateSmsMessage(id: string, fields: Fields, c: Queryable = getPool()): Promise<SmsMessage> {
  const keys = Object.keys(fields) as (keyof Fields)[];
  const sets = keys.map((k, i) => `${k} = $${i + 2}`).join(', ');
  await c.query(`UPDATE sms_messages SET ${sets}${keys.length ? ', ' : ''}updated_at = now() WHERE id = $1`, [id, ...keys.map((k) => fields[k])]);
  return (await getSmsMessage(id, c))!;
}

/** Waits (polling) until the send workflow has settled and submitted, or failed, or the time is up. */
export async function waitForSubmission(id: string, timeoutMs = 15_000): Promise<SmsMessage> {
  const until = Date.now() + timeoutMs;
  for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
    const m = (await getSmsMessage(id))!;
    if (m.status !== 'pending' || Date.now() >= until) return m;
    await new Promise((r) => setTimeout(r, delay));
  }
}
