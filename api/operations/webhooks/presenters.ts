/**
 * Wire shapes of the webhooks area. The webhook and delivery shapes are also what the delivery
 * workflow and the outbox carry, so domain/webhooks defines them; the API shows them unchanged.
 */
import { presentDelivery as deliveryShape, toPublicWebhook, type DeliveryRow, type Webhook } from '../../../domain/webhooks';

/** A webhook endpoint; `secret` only in the answers of create and rotate-secret. */
export const presentWebhook = (w: Webhook, secret?: string) => toPublicWebhook(w, secret);

/** A delivery that has no attempts yet (a replay just created). */
export const presentNewDelivery = (d: DeliveryRow) => deliveryShape(d, []);
