import { expect } from 'vitest';
import type { TestApp } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';
import { fundComponents, gcuFunding } from './helpers';

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A new account of the caller holding `units` GCU, composed from deposited components. */
export async function holdGcu(t: TestApp, headers: Record<string, string>, units: string): Promise<string> {
  const acct = await openFundedAccount(t, headers, '0');
  await fundComponents(t, headers, acct, gcuFunding(Number(units)));
  const r = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/baskets/compose`, headers, payload: { basket_code: 'GCU', amount: units } });
  expect(r.statusCode, r.body).toBe(201);
  return acct;
}

/** A proposal changing GCU's weights (drops GBP and gold, adds BTC), by an operator. */
export const REWEIGHT = [
  { asset_code: 'USD', weight: '0.4' },
  { asset_code: 'EUR', weight: '0.3' },
  { asset_code: 'CHF', weight: '0.1' },
  { asset_code: 'JPY', weight: '0.1' },
  { asset_code: 'BTC', weight: '0.1' },
];

export async function propose(t: TestApp, operator: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v2/gcu/voting/proposals',
    headers: operator,
    payload: { title: 'Reweight GCU', components: REWEIGHT, ...body },
  });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data as { id: string; status: string; snapshot_at: string; voting_starts_at: string; voting_ends_at: string; workflow_id: string };
}

export const vote = (t: TestApp, headers: Record<string, string>, id: string, body: unknown, form: 'proposal' | 'poll' = 'proposal') =>
  t.app.inject({
    method: 'POST',
    url: form === 'proposal' ? `/api/v2/gcu/voting/proposals/${id}/vote` : `/api/voting/polls/${id}/vote`,
    headers,
    payload: body as object,
  });
