/**
 * Activities of the platform's system-event workflows (workflows/system-events.ts): API key expiry
 * notices, maintenance window start and end, the daily retention purge. Each is idempotent: the domain
 * functions write their event only with the state change that marks it done.
 */
import type pg from 'pg';
import { notifyExpiringApiKeys } from '../../domain/auth/key-expiry';
import { getMaintenance, markMaintenanceEnded, markMaintenanceStarted } from '../../domain/platform/maintenance-windows';
import { purgeExpiredData, type PurgeReport } from '../../domain/platform/retention';

export function createSystemEventActivities(deps: { pool?: pg.Pool } = {}) {
  return {
    async notifyExpiringApiKeys(): Promise<number> {
      return notifyExpiringApiKeys(deps.pool);
    },
    /** The daily retention purge as of the workflow's scheduled time (idempotent: what is gone stays gone). */
    async purgeExpiredData(input: { nowMs: number }): Promise<PurgeReport> {
      return purgeExpiredData(new Date(input.nowMs), deps.pool);
    },
    /** The window's times (ms since epoch) and whether it was cancelled; null when it does not exist. */
    async maintenanceWindowTimes(input: { maintenanceId: string }): Promise<{ startsAt: number; endsAt: number; cancelled: boolean } | null> {
      const w = await getMaintenance(input.maintenanceId);
      return w ? { startsAt: w.startsAt.getTime(), endsAt: w.endsAt.getTime(), cancelled: w.cancelledAt !== null } : null;
    },
    async startMaintenanceWindow(input: { maintenanceId: string }): Promise<boolean> {
      return markMaintenanceStarted(input.maintenanceId);
    },
    async endMaintenanceWindow(input: { maintenanceId: string }): Promise<void> {
      await markMaintenanceEnded(input.maintenanceId);
    },
  };
}

export type SystemEventActivities = ReturnType<typeof createSystemEventActivities>;
