/**
 * Activities of the daily provisioning run (workflows/microfinance-provisioning.ts). Each scope's run is
 * idempotent per (environment, currency, run date) (domain/microfinance/provisioning/run.ts): a
 * retried or repeated activity returns the first run's summary and posts nothing more.
 */
import type pg from 'pg';
import { getPool } from '../../domain/db/pool';
import { provisioningCurrencies, runProvisioning, type ProvisionRun } from '../../domain/microfinance/provisioning';
import { ENVIRONMENTS, type Environment } from '../../domain/platform/environment';

export interface ProvisioningScope {
  environment: Environment;
  currency: string;
}

/** A run's summary as it crosses the workflow boundary (dates as strings). */
export type ProvisionRunSummary = Omit<ProvisionRun, 'createdAt'> & { createdAt: string };

export function createMfProvisioningActivities(deps: { pool?: pg.Pool } = {}) {
  const pool = () => deps.pool ?? getPool();
  return {
    /** Every environment and currency with active loans or an allowance to keep. */
    async mfProvisioningScopes(): Promise<ProvisioningScope[]> {
      const scopes: ProvisioningScope[] = [];
      for (const environment of ENVIRONMENTS) {
        for (const currency of await provisioningCurrencies(environment, pool())) scopes.push({ environment, currency });
      }
      return scopes;
    },

    async mfProvisionScope(input: ProvisioningScope & { runDate: string }): Promise<ProvisionRunSummary> {
      const run = await runProvisioning(input, pool());
      return { ...run, createdAt: run.createdAt.toISOString() };
    },
  };
}

export type MfProvisioningActivities = ReturnType<typeof createMfProvisioningActivities>;
