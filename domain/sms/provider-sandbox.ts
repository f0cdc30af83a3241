/**
 * The sandbox SMS operator: accepts, "sends" and "delivers" like a real one, deterministically,
 * and fails on demand. The last four digits of the destination choose what happens:
 *
 * | ends in | submit                                   | delivery report                          |
 * | 0000    | refused: 21610 unsubscribed/unreachable   | (never accepted)                         |
 * | 0001    | accepted                                  | sent after 1 s, failed 30003 after 5 s   |
 * | 0002    | 503 outage on the message's first submit; | as any other number once accepted        |
 * |         | its retry is accepted                     |                                          |
 * | 0003    | accepted                                  | sent after 1 s, never a receipt: expired |
 * |         |                                           | 30036 after the 10 h validity period     |
 * | other   | accepted                                  | sent after 1 s, delivered after 5 s      |
 *
 * The report is a function of the submission time and `asOf`, both from the caller's clock (the
 * workflow's, so Temporal's time-skipping test server fast-forwards it). The provider id is derived
 * from the platform's message id, so a repeated submit is idempotent. The attempt count the 0002
 * mode needs, and the destination a report looks up, live in sms_sandbox_submissions.
 */
import { createHash } from 'node:crypto';
import { getPool, type Queryable } from '../db/pool';
import { SmsProviderError, type DeliveryReport, type SmsProvider, type SmsSubmission } from './provider-types';

export const SANDBOX_SENT_AFTER_MS = 1_000;
export const SANDBOX_DELIVERED_AFTER_MS = 5_000;
/** Twilio's default (and longest) ValidityPeriod, 36,000 s. */
export const SANDBOX_VALIDITY_MS = 36_000 * 1_000;

export type SandboxMode = 'deliver' | 'reject' | 'undeliverable' | 'outage_once' | 'no_receipt';

const MODES: Readonly<Record<string, SandboxMode>> = { '0000': 'reject', '0001': 'undeliverable', '0002': 'outage_once', '0003': 'no_receipt' };

/** What the sandbox does with a destination (E.164). */
export function sandboxModeOf(e164: string): SandboxMode {
  return MODES[e164.replace(/\D/g, '').slice(-4)] ?? 'deliver';
}

/** Twilio-shaped id (SM + 32 hex), the same for every submit of one message. */
export function sandboxProviderMessageId(messageId: string): string {
  return `SM${createHash('sha256').update(`sms-sandbox|${messageId}`).digest('hex').slice(0, 32)}`;
}

export class SandboxSmsProvider implements SmsProvider {
  readonly name = 'sandbox';

  /** `db`: where sms_sandbox_submissions lives (default: the platform pool, looked up per call). */
  constructor(private readonly db?: Queryable) {}

  async submit(m: SmsSubmission, at: Date): Promise<{ providerMessageId: string; status: 'accepted' }> {
    const mode = sandboxModeOf(m.to);
    if (mode === 'reject') {
      throw new SmsProviderError('21610', 'Attempt to send to unsubscribed recipient: the sandbox never reaches numbers ending 0000', { retryable: false, httpStatus: 400 });
    }
    const providerMessageId = sandboxProviderMessageId(m.messageId);
    // One row per message: the first submit inserts, every later one counts an attempt. A message id
    // reused for another destination matches no row (the WHERE) and is refused.
    const { rows } = await (this.db ?? getPool()).query<{ attempts: number }>(
      `INSERT INTO sms_sandbox_submissions (message_id, provider_message_id, destination, attempts, accepted, first_attempt_at, last_attempt_at)
       VALUES ($1, $2, $3, 1, $4, $5, $5)
       ON CONFLICT (message_id) DO UPDATE SET attempts = sms_sandbox_submissions.attempts + 1, accepted = true, last_attempt_at = excluded.last_attempt_at
       WHERE sms_sandbox_submissions.destination = excluded.destination
       RETURNING attempts`,
      [m.messageId, providerMessageId, m.to, mode !== 'outage_once', at],
    );
    if (!rows[0]) {
      throw new SmsProviderError('21211', `Message ${m.messageId} was already submitted to another destination`, { retryable: false, httpStatus: 400 });
    }
    if (mode === 'outage_once' && rows[0].attempts === 1) {
      throw new SmsProviderError('20503', 'Service unavailable (sandbox: the first submit to a number ending 0002 meets an outage; retry)', { retryable: true, httpStatus: 503 });
    }
    return { providerMessageId, status: 'accepted' };
  }

  async report(providerMessageId: string, submittedAt: Date, asOf: Date): Promise<DeliveryReport> {
    const { rows } = await (this.db ?? getPool()).query<{ destination: string }>(
      'SELECT destination FROM sms_sandbox_submissions WHERE provider_message_id = $1 AND accepted',
      [providerMessageId],
    );
    if (!rows[0]) throw new SmsProviderError('20404', `No message ${providerMessageId} was accepted by the sandbox`, { retryable: false, httpStatus: 404 });
    return sandboxTimeline(sandboxModeOf(rows[0].destination), submittedAt, asOf);
  }
}

/** The report a sandbox message in `mode` has at `asOf` when it was accepted at `submittedAt`. */
export function sandboxTimeline(mode: SandboxMode, submittedAt: Date, asOf: Date): DeliveryReport {
  const t0 = submittedAt.getTime();
  const elapsed = asOf.getTime() - t0;
  const after = (ms: number) => new Date(t0 + ms);
  if (elapsed < SANDBOX_SENT_AFTER_MS) return { status: 'accepted', at: submittedAt };
  if (mode === 'no_receipt') {
    return elapsed < SANDBOX_VALIDITY_MS
      ? { status: 'sent', at: after(SANDBOX_SENT_AFTER_MS) }
      : { status: 'expired', errorCode: '30036', errorReason: 'Validity Period Expired: no delivery receipt from the operator', at: after(SANDBOX_VALIDITY_MS) };
  }
  if (elapsed < SANDBOX_DELIVERED_AFTER_MS) return { status: 'sent', at: after(SANDBOX_SENT_AFTER_MS) };
  if (mode === 'undeliverable') {
    return { status: 'failed', errorCode: '30003', errorReason: 'Unreachable destination handset', at: after(SANDBOX_DELIVERED_AFTER_MS) };
  }
  return { status: 'delivered', at: after(SANDBOX_DELIVERED_AFTER_MS) };
}
