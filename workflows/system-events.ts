import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { SystemEventActivities } from '../activities/system';

const { notifyExpiringApiKeys, purgeExpiredData, maintenanceWindowTimes, startMaintenanceWindow, endMaintenanceWindow } = proxyActivities<SystemEventActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** Run daily by the 'api-key-expiry-daily' schedule: system.api_key_expiring for keys expiring within 7 days, once per key. */
export async function apiKeyExpiryWorkflow(): Promise<{ notified: number }> {
  return { notified: await notifyExpiringApiKeys() };
}

/** Run daily by the 'data-retention-daily' schedule: records past their retention go (domain/platform/retention.ts). */
export async function dataRetentionWorkflow(): Promise<{ login_attempts: number; ai_queries: number; rotated_refresh_tokens: number }> {
  // The workflow's clock (deterministic, replay-safe) is the purge's "now".
  return purgeExpiredData({ nowMs: Date.now() });
}

export const cancelMaintenanceSignal = defineSignal('cancel');

/**
 * One maintenance window (domain/platform/maintenance-windows.ts): waits until starts_at, writes
 * system.maintenance_start, waits until ends_at, writes system.maintenance_end. A cancel signal
 * before the start ends the workflow without events; after it, ends the window at once.
 * Deterministic: times come from an activity, waiting from Temporal timers.
 */
export async function maintenanceWindowWorkflow(input: { maintenanceId: string }): Promise<{ started: boolean }> {
  let cancelled = false;
  setHandler(cancelMaintenanceSignal, () => {
    cancelled = true;
  });
  const times = await maintenanceWindowTimes(input);
  if (!times || times.cancelled) return { started: false };
  const untilStart = times.startsAt - Date.now();
  if (untilStart > 0) await condition(() => cancelled, untilStart);
  if (cancelled) return { started: false };
  const started = await startMaintenanceWindow(input);
  if (!started) return { started: false };
  const untilEnd = times.endsAt - Date.now();
  if (untilEnd > 0) await condition(() => cancelled, untilEnd);
  await endMaintenanceWindow(input);
  return { started: true };
}
