import { createTransferActivities } from './transfers';
import { createWebhookActivities } from './webhooks';
import { createRailActivities } from './rails';
import { createInterledgerActivities } from './interledger';
import { createCrosschainActivities } from './crosschain';
import { createDefiActivities } from './defi';

/** Every activity the worker runs, keyed by name. */
export function createActivities() {
  return {
    ...createTransferActivities(),
    ...createWebhookActivities(),
    ...createRailActivities(),
    ...createInterledgerActivities(),
    ...createCrosschainActivities(),
    ...createDefiActivities(),
  };
}
