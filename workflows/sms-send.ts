import { condition, defineSignal, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { SmsActivities } from '../activities/sms';
import type { SmsSendInput } from '../domain/sms/send';
import { failureOf } from '../domain/temporal/failures';
import { SA } from '../domain/temporal/search-attributes';

/** A delivery receipt arrived (a provider's status callback): look now rather than at the next poll. */
export const deliveryReportSignal = defineSignal('deliveryReport');

const acts = proxyActivities<SmsActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 ms', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

const status = (value: string) => upsertSearchAttributes([{ key: SA.businessStatus, value }] as never);

/**
 * One paid SMS: settle → submit → follow delivery receipts → delivered, or failed with a refund.
 * A refused payment ends it unsent; a provider that refuses the message, or reports it failed or
 * expired, fails it and the payment is refunded through the ledger. A submission that may or may not
 * have reached the provider is failed without a refund (it may have been sent) for an operator to settle.
 */
export async function smsSendWorkflow(input: SmsSendInput): Promise<string> {
  let woken = false;
  setHandler(deliveryReportSignal, () => {
    woken = true;
  });
  const paid = await acts.settleSmsPayment(input);
  if (!paid.ok) {
    status('payment_failed');
    return 'failed';
  }
  status('paid');
  try {
    await acts.submitSms({ messageId: input.messageId, atMs: Date.now() });
  } catch (err) {
    const f = failureOf(err, 'SMS_SUBMISSION_FAILED');
    await acts.failSms({ messageId: input.messageId, code: f.code, reason: f.reason, refund: f.code !== 'SMS_SUBMISSION_UNCERTAIN' });
    status('failed');
    return 'failed';
  }
  status('sent');
  const started = Date.now();
  // Receipts come within seconds usually: poll soon, then back off (to 1 minute, 10 after the first hour).
  for (let delay = 1_000; ; delay = Math.min(delay * 2, Date.now() - started > 3_600_000 ? 600_000 : 60_000)) {
    await condition(() => woken, delay);
    woken = false;
    const r = await acts.checkSmsDelivery({ messageId: input.messageId, asOfMs: Date.now() });
    if (r.status === 'delivered') {
      status('delivered');
      return 'delivered';
    }
    if (r.final) {
      await acts.failSms({ messageId: input.messageId, code: r.code ?? 'SMS_FAILED', reason: r.reason ?? `The message ${r.status}`, refund: true });
      status('failed');
      return 'failed';
    }
  }
}
