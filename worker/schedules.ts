/**
 * Every Temporal schedule the platform runs, in one list: the worker (worker/main.ts) and `npm start`
 * (scripts/start.ts) both call ensureSchedules, so a new schedule is added here once
 * (docs/architecture.md, "How to add an area", step 6). Each ensure is idempotent per namespace:
 * whichever process creates a schedule first, the others find it.
 */
import { ensureAchSchedules } from '../domain/ach/schedule';
import { ensureApiKeyExpirySchedule } from '../domain/auth/key-expiry';
import { ensureBasketValuationSchedule } from '../domain/baskets/valuation-schedule';
import { backfillValuations, recordValuations } from '../domain/baskets/valuations';
import { ensureLendingWatchSchedule } from '../domain/defi/lending/schedule';
import { ensureStakingHarvestSchedule } from '../domain/defi/staking/schedule';
import { ensureGovernanceSchedule } from '../domain/governance/schedule';
import { ensureMfProvisioningSchedule } from '../domain/microfinance/provisioning/schedule';
import { ensureDataRetentionSchedule } from '../domain/platform/retention';
import { ensureMifidDeadlineSchedule } from '../domain/regtech/mifid/schedule';
import { ensureX402ReconcileSchedule } from '../domain/x402/reconcile';

/** Which of the schedules a deployment manages from this process (ACH_SCHEDULES_MANAGED and its siblings). */
export interface ManagedSchedules {
  ach: boolean;
  baskets: boolean;
  mifid: boolean;
}

/** The schedules, created or updated; the ACH schedule ids (npm start prints them). */
export async function ensureSchedules(managed: ManagedSchedules, now = new Date()): Promise<{ ach: string[] }> {
  // The ACH file windows, once per namespace.
  const ach = managed.ach ? await ensureAchSchedules() : [];
  if (managed.baskets) {
    // Hourly basket valuations and the monthly governance poll.
    await ensureBasketValuationSchedule();
    await ensureGovernanceSchedule();
    // The last 30 days' hours from the feed's own history, then the current hour (both idempotent), so
    // the 24h/7d/30d changes are figures from recorded valuations on a fresh start (about a second).
    await backfillValuations(now);
    await recordValuations(now);
  }
  // The hourly MiFID II T+1 deadline check (it checks the MiFID II settings first).
  if (managed.mifid) await ensureMifidDeadlineSchedule();
  // The daily IFRS 9 provisioning run of microfinance loans (idempotent per environment, currency and day).
  await ensureMfProvisioningSchedule();
  // The daily staking harvest (each epoch's reward paid once, whichever run pays it).
  await ensureStakingHarvestSchedule();
  // The daily API key expiry notices (system.api_key_expiring, once per key).
  await ensureApiKeyExpirySchedule();
  // The daily retention purge (login attempts, AI query log, rotated refresh tokens).
  await ensureDataRetentionSchedule();
  // The lending watch every minute (position.liquidation_warning, liquidations below a health factor of 1).
  await ensureLendingWatchSchedule();
  // Production x402 payments stuck 'settling' checked against the chain every 5 minutes.
  await ensureX402ReconcileSchedule();
  return { ach };
}
