/**
 * Delivery receipts pushed by the provider: Twilio posts a message's status changes to
 * SMS_STATUS_CALLBACK_URL (?message_id=<ours>), signed with X-Twilio-Signature. A valid callback wakes
 * the message's send workflow, which then reads the report itself (the callback's content is never
 * trusted beyond "look now"), so a forged or replayed callback can at most cause an early look.
 */
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { signalWorkflow } from '../temporal/signals';
import { getSmsMessage } from './messages';
import { verifyTwilioSignature } from './provider';
import { smsWorkflowId } from './send';

export async function acceptTwilioStatusCallback(input: { messageId: string; signature: string | undefined; params: Record<string, string | string[]> }): Promise<{ woke: boolean }> {
  const cfg = loadConfig();
  // Without the URL and token nothing can be verified: every callback is refused like a forged one.
  if (!cfg.smsStatusCallbackUrl || !cfg.twilioAuthToken) throw new DomainError('CALLBACK_SIGNATURE_INVALID', 'Status callbacks are not configured here (SMS_STATUS_CALLBACK_URL, TWILIO_AUTH_TOKEN)');
  const url = new URL(cfg.smsStatusCallbackUrl);
  url.searchParams.set('message_id', input.messageId);
  if (!verifyTwilioSignature(cfg.twilioAuthToken, input.signature, url.toString(), input.params)) {
    throw new DomainError('CALLBACK_SIGNATURE_INVALID', 'X-Twilio-Signature does not match this request');
  }
  const m = await getSmsMessage(input.messageId);
  if (!m) throw new DomainError('SMS_MESSAGE_NOT_FOUND', `Message ${input.messageId} not found`);
  return { woke: await signalWorkflow(smsWorkflowId(m.id), 'deliveryReport') };
}
