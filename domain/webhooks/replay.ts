import { createReplay, getWebhook, listDeliveries, type DeliveryRow, type DeliveryStatus, type Owner } from './index';
import { startDeliveryWorkflows } from './workflow';

/**
 * Replays a delivery (createReplay: a new delivery of the same event to an active endpoint) and
 * starts its workflow. When Temporal is not reachable the delivery row still exists and the
 * dispatcher's sweep starts it later: `onDeferred` hears of it, nothing is refused.
 */
export async function replayDelivery(
  owner: Owner,
  webhookId: string,
  deliveryId: string,
  onDeferred: (err: Error, delivery: DeliveryRow) => void = () => undefined,
): Promise<DeliveryRow> {
  const d = await createReplay(owner, webhookId, deliveryId);
  await startDeliveryWorkflows([{ deliveryId: d.id, userId: owner.userId, environment: owner.environment }]).catch((err: Error) => onDeferred(err, d));
  return d;
}

/** Deliveries of the owner's webhook, newest first; NOT_FOUND when the owner has no such webhook. */
export async function listOwnWebhookDeliveries(
  owner: Owner,
  webhookId: string,
  page: { perPage: number; offset: number },
  filter: { status?: DeliveryStatus; eventType?: string },
): Promise<Awaited<ReturnType<typeof listDeliveries>>> {
  const w = await getWebhook(owner, webhookId);
  return listDeliveries(w.id, page, filter);
}
