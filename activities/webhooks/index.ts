import { attemptDelivery, type AttemptInput, type AttemptOutcome } from '../../domain/webhooks/delivery';

export function createWebhookActivities() {
  return {
    /** One signed POST of a delivery (rate slot, send, record). Endpoint failures are results, not errors. */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptOutcome> {
      return attemptDelivery(input);
    },
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
