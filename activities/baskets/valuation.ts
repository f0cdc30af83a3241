/**
 * The hourly valuation step (workflows/basket-valuation.ts). Idempotent: recording an instant
 * twice reuses that instant's stored rates and keeps the rows already there
 * (domain/baskets/valuations.ts).
 */
import { recordValuations } from '../../domain/baskets/valuations';
import type { RateProvider } from '../../domain/rates';
import { rateProviderFor } from '../../domain/rates/feed';

export interface BasketValuationSummary {
  valuedAt: string;
  ratesRecorded: number;
  valuations: Array<{ environment: string; basketCode: string; valueUsd: string; inserted: boolean }>;
  skipped: Array<{ environment: string; basketCode: string; missing: string[] }>;
}

export function createBasketValuationActivities(deps: { provider?: RateProvider } = {}) {
  // Built when the worker starts: an unknown RATES_PROVIDER stops the worker there, not at the first run.
  const provider = deps.provider ?? rateProviderFor();
  return {
    async recordBasketValuations({ atMs }: { atMs: number }): Promise<BasketValuationSummary> {
      const r = await recordValuations(new Date(atMs), { provider });
      return {
        valuedAt: r.valuedAt.toISOString(),
        ratesRecorded: r.ratesRecorded,
        valuations: r.valuations.map((v) => ({ environment: v.environment, basketCode: v.basketCode, valueUsd: v.valueUsd, inserted: v.inserted })),
        skipped: r.skipped,
      };
    },
  };
}

export type BasketValuationActivities = ReturnType<typeof createBasketValuationActivities>;
