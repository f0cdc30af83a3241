import type pg from 'pg';
import { getPool } from '../domain/db/pool';
import { loadConfig } from '../domain/platform/config';
import { createTransferService, type TransferService } from '../domain/transfers';
import { createTransferActivities } from './transfers';
import { createWebhookActivities } from './webhooks';
import { createRailActivities } from './rails';
import { createInterledgerActivities } from './interledger';
import { createCrosschainActivities } from './crosschain';
import { createDefiActivities } from './defi';
import { createStakingActivities } from './defi/staking';
import { createLendingActivities } from './defi/lending';
import { createGovernanceActivities } from './governance';
import { createBasketValuationActivities } from './baskets/valuation';
import { createBasketBuyActivities } from './baskets/buy';
import { createRegtechActivities } from './regtech';
import { createHoldActivities } from './regtech/holds';
import { createMobileActivities } from './mobile';
import { createPartnerSdkActivities } from './partner/sdk';
import { createSmsActivities } from './sms';
import { createObPaymentActivities } from './open-banking/payments';
import { createOpenBankingConsentActivities } from './open-banking/consents';
import { createMfProvisioningActivities } from './microfinance/provisioning';
import { createMfLoanActivities } from './microfinance/loans';
import { createSystemEventActivities } from './system';
import { createX402Activities } from './x402';

/** What the activities are handed: the worker's pool and services (worker/index.ts builds them once). */
export interface ActivityDeps {
  pool: pg.Pool;
  transfers: TransferService;
}

/** Services of their own on the process's pool (for callers that build no others: tests' workers, benches). */
export function activityDepsOnPool(pool: pg.Pool = getPool()): ActivityDeps {
  return { pool, transfers: createTransferService({ pool, config: loadConfig() }) };
}

/** Every activity the worker runs, keyed by name. */
export function createActivities(deps: ActivityDeps = activityDepsOnPool()) {
  return {
    ...createTransferActivities(deps),
    ...createWebhookActivities(),
    ...createRailActivities(),
    ...createInterledgerActivities(),
    ...createCrosschainActivities(),
    ...createDefiActivities(),
    ...createStakingActivities(),
    ...createLendingActivities({ pool: deps.pool }),
    ...createGovernanceActivities(),
    ...createBasketValuationActivities(),
    ...createBasketBuyActivities(),
    ...createRegtechActivities(),
    ...createHoldActivities(),
    ...createMobileActivities(deps),
    ...createPartnerSdkActivities(),
    ...createSmsActivities(),
    ...createObPaymentActivities(),
    ...createOpenBankingConsentActivities(),
    ...createMfProvisioningActivities({ pool: deps.pool }),
    ...createMfLoanActivities(),
    ...createSystemEventActivities({ pool: deps.pool }),
    ...createX402Activities({ pool: deps.pool }),
  };
}
