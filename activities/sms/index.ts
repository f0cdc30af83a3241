/**
 * The SMS send workflow's activities (workflows/sms-send.ts), each idempotent on the message row:
 * settle the payment (the row is marked paid in the settlement's own transaction), hand the message
 * to the provider (a submitted message is not submitted again), read its delivery report, and fail
 * it with a refund through the ledger.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { DomainError } from '../../domain/platform/errors';
import { getSmsMessage, updateSmsMessage } from '../../domain/sms/messages';
import { smsProviderFor, SmsProviderError, type DeliveryStatus } from '../../domain/sms/provider';
import type { SmsSendInput } from '../../domain/sms/send';
import { paymentNetwork, usdcAsset } from '../../domain/x402/networks';
import { refundPayment, settlePayment } from '../../domain/x402/payments';

async function messageOf(id: string) {
  const m = await getSmsMessage(id);
  if (!m) throw ApplicationFailure.nonRetryable(`SMS message ${id} not found`, 'SMS_MESSAGE_NOT_FOUND');
  return m;
}

export function createSmsActivities() {
  return {
    /** Settles the message's payment once; a refusal fails the message unpaid (returns its code). */
    async settleSmsPayment(input: SmsSendInput): Promise<{ ok: boolean; code?: string }> {
      const m = await messageOf(input.messageId);
      if (m.paymentStatus === 'settled' || m.paymentStatus === 'refunded') return { ok: true };
      if (m.paymentStatus === 'failed') return { ok: false, code: m.failureCode ?? 'PAYMENT_SETTLEMENT_FAILED' };
      const network = paymentNetwork(input.network, m.environment);
      try {
        await settlePayment(
          input.signed,
          { network, asset: usdcAsset(network), amount: input.amount, payTo: input.payTo },
          {
            environment: m.environment,
            purpose: 'sms',
            resource: `sms:${m.id}`,
            agentKeyId: m.agentKeyId,
            onSettled: async (c, p) => {
              await updateSmsMessage(m.id, { payment_id: p.id, payment_status: 'settled' }, c);
            },
          },
        );
        return { ok: true };
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        await updateSmsMessage(m.id, { status: 'failed', payment_status: 'failed', failure_code: err.code, failure_reason: err.message, failed_at: new Date() });
        return { ok: false, code: err.code };
      }
    },

    /**
     * Hands the message to the environment's provider at the workflow's time. Refusals that will not
     * change are non-retryable failures with the provider's code; an outage is retried by Temporal.
     */
    async submitSms({ messageId, atMs }: { messageId: string; atMs: number }): Promise<{ providerMessageId: string; submittedAtMs: number }> {
      const m = await messageOf(messageId);
      if (m.providerMessageId && m.submittedAt) return { providerMessageId: m.providerMessageId, submittedAtMs: m.submittedAt.getTime() };
      const provider = smsProviderFor(m.environment);
      try {
        const r = await provider.submit({ messageId: m.id, to: m.destination, from: m.sender, body: m.body, parts: m.parts }, new Date(atMs));
        await updateSmsMessage(m.id, { status: 'sent', provider: provider.name, provider_message_id: r.providerMessageId, submitted_at: new Date(atMs), sent_at: new Date() });
        return { providerMessageId: r.providerMessageId, submittedAtMs: atMs };
      } catch (err) {
        if (err instanceof SmsProviderError && err.ambiguous) {
          // It may have reached the provider: never retried (it could be sent twice) and never refunded (it could have been sent).
          throw ApplicationFailure.nonRetryable(err.message, 'SMS_SUBMISSION_UNCERTAIN');
        }
        if (err instanceof SmsProviderError && !err.retryable) throw ApplicationFailure.nonRetryable(err.message, err.code);
        throw err;
      }
    },

    /** The provider's delivery report as of the workflow's time; a delivered message is recorded as such. */
    async checkSmsDelivery({ messageId, asOfMs }: { messageId: string; asOfMs: number }): Promise<{ status: DeliveryStatus; final: boolean; code?: string; reason?: string }> {
      const m = await messageOf(messageId);
      if (m.status === 'delivered') return { status: 'delivered', final: true };
      const report = await smsProviderFor(m.environment).report(m.providerMessageId!, m.submittedAt!, new Date(asOfMs));
      if (report.status === 'delivered') {
        await updateSmsMessage(m.id, { status: 'delivered', delivered_at: report.at });
        return { status: 'delivered', final: true };
      }
      const final = report.status === 'failed' || report.status === 'expired';
      return { status: report.status, final, code: report.errorCode ? `SMS_${report.status.toUpperCase()}_${report.errorCode}` : `SMS_${report.status.toUpperCase()}`, reason: report.errorReason };
    },

    /** Fails the message; with refund, its settled payment goes back to the payer (once). */
    async failSms({ messageId, code, reason, refund }: { messageId: string; code: string; reason: string; refund: boolean }): Promise<void> {
      const m = await messageOf(messageId);
      const failed = m.status === 'failed' ? {} : ({ status: 'failed', failure_code: code, failure_reason: reason, failed_at: new Date() } as const);
      if (refund && m.paymentId && m.paymentStatus === 'settled') {
        // The message fails and its payment is given back in one transaction: nobody sees one without the other.
        await refundPayment(m.paymentId, `SMS ${m.id} ${code}: ${reason}`, async (c) => {
          await updateSmsMessage(m.id, { ...failed, payment_status: 'refunded' }, c);
        });
      } else if (m.status !== 'failed') {
        await updateSmsMessage(m.id, failed);
      }
    },
  };
}

export type SmsActivities = ReturnType<typeof createSmsActivities>;
