import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { dispatchOnce } from '../../domain/events/dispatcher';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

/**
 * Proposal events are written without a user (they concern every holder): the dispatcher
 * delivers them to every subscribed webhook of the proposal's environment, whoever owns it, and
 * to no other environment. Deliveries are only created here (no worker polls this file's queue),
 * so nothing is sent anywhere.
 */
let t: TestApp;
beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  t = await createTestApp();
});
afterAll(async () => t.close());

const hook = async (headers: Record<string, string>, events: string[]) => {
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers, payload: { url: 'http://127.0.0.1:9/hooks', events } });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data.id as string;
};

async function drain() {
  for (;;) if ((await dispatchOnce()).events === 0) return;
}

describe('environment-wide governance events', () => {
  it('reach every sandbox subscriber, not production ones nor unsubscribed hooks', async () => {
    await drain();
    const other = await createTestUser();
    const prod = await createTestUser({ environment: 'production' });
    const mine = await hook(t.headers, ['governance.proposal.created']);
    const theirs = await hook(other.headers, ['*']);
    const unsubscribed = await hook(other.headers, ['transfer.completed']);
    const production = await hook(prod.headers, ['governance.proposal.created']);

    const operator = await createTestUser({ admin: true });
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/gcu/voting/proposals',
      headers: operator.headers,
      payload: { title: 'webhooks', components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'EUR', weight: '0.5' }] },
    });
    expect(r.statusCode, r.body).toBe(201);
    await drain();

    const { rows } = await getPool().query<{ webhook_id: string; payload: string }>(
      `SELECT webhook_id, payload FROM webhook_deliveries WHERE event_type = 'governance.proposal.created'`,
    );
    const to = new Set(rows.map((x) => x.webhook_id));
    expect(to.has(mine)).toBe(true);
    expect(to.has(theirs)).toBe(true);
    expect(to.has(unsubscribed)).toBe(false);
    expect(to.has(production)).toBe(false);
    expect(JSON.parse(rows[0].payload).data.id ?? JSON.parse(rows[0].payload).data.proposal_id).toBe(r.json().data.id);
  });
});
