import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../domain/auth/api-keys';
import { notifyExpiringApiKeys } from '../../domain/auth/key-expiry';
import { getPool } from '../../domain/db/pool';
import { forgetMaintenanceCache } from '../../domain/platform/maintenance-windows';
import { checkReadinessAndAnnounce } from '../../domain/platform/readiness-watch';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { outbox } from './helpers';

let t: TestApp;
let w: TestWorker;
let admin: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  admin = await createTestUser({ admin: true });
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const waitFor = async (fn: () => Promise<boolean>, timeoutMs = 20_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('system.api_key_expiring', () => {
  it('the daily workflow announces keys expiring within 7 days, once per key', async () => {
    const u = await createTestUser();
    const soon = await createApiKey({ userId: u.userId, name: 'soon', environment: 'sandbox', permissions: ['read'], expiresAt: new Date(Date.now() + 3 * 86_400_000 + 60_000) });
    const later = await createApiKey({ userId: u.userId, name: 'later', environment: 'sandbox', permissions: ['read'], expiresAt: new Date(Date.now() + 30 * 86_400_000) });
    const client = await getTemporalClient();
    const run = await client.workflow.execute('apiKeyExpiryWorkflow', { taskQueue: w.taskQueue, workflowId: `key-expiry-test-${Date.now()}`, args: [] });
    expect((run as { notified: number }).notified).toBeGreaterThanOrEqual(1);
    await notifyExpiringApiKeys();
    const found = await outbox('system.api_key_expiring', { userId: u.userId });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ environment: 'sandbox', aggregate_id: soon.record.id, data: { api_key_id: soon.record.id, name: 'soon', days_remaining: 3 } });
    expect(found.some((r) => r.aggregate_id === later.record.id)).toBe(false);
  });
});

describe('maintenance windows', () => {
  it('operators schedule a window: start and end events; writes 503 MAINTENANCE with Retry-After meanwhile, reads work', async () => {
    const startsAt = new Date(Date.now() + 1500);
    const endsAt = new Date(Date.now() + 6000);
    const body = { starts_at: startsAt.toISOString(), ends_at: endsAt.toISOString(), message: 'database upgrade' };
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/operators/maintenance', headers: t.headers, payload: body })).statusCode).toBe(403);
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/operators/maintenance', headers: admin.headers, payload: body });
    expect(r.statusCode).toBe(201);
    const id = r.json().data.id as string;
    expect(r.json().data).toMatchObject({ status: 'scheduled', message: 'database upgrade', environment: 'sandbox' });
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/operators/maintenance', headers: admin.headers })).json().data.map((x: { id: string }) => x.id)).toContain(id);

    await waitFor(async () => (await outbox('system.maintenance_start')).some((e) => e.aggregate_id === id));
    forgetMaintenanceCache();
    const write = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'during' } });
    expect(write.statusCode).toBe(503);
    expect(write.json().errors[0].code).toBe('MAINTENANCE');
    expect(Number(write.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(write.headers['retry-after'])).toBeLessThanOrEqual(6);
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers })).statusCode).toBe(200);
    // Operator routes stay open during the window.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/operators/maintenance', headers: admin.headers })).statusCode).toBe(200);

    await waitFor(async () => (await outbox('system.maintenance_end')).some((e) => e.aggregate_id === id));
    forgetMaintenanceCache();
    expect((await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'after' } })).statusCode).toBe(201);
    const start = (await outbox('system.maintenance_start')).filter((e) => e.aggregate_id === id);
    expect(start).toHaveLength(1);
    expect(start[0]).toMatchObject({ user_id: null, environment: 'sandbox', data: { maintenance_id: id, message: 'database upgrade' } });
    expect((await outbox('system.maintenance_end')).filter((e) => e.aggregate_id === id)).toHaveLength(1);
  });

  it('a window cancelled before it starts sends nothing; DELETE of an unknown one is 404', async () => {
    const body = { starts_at: new Date(Date.now() + 60_000).toISOString(), ends_at: new Date(Date.now() + 120_000).toISOString(), message: 'later' };
    const id = (await t.app.inject({ method: 'POST', url: '/api/v1/operators/maintenance', headers: admin.headers, payload: body })).json().data.id as string;
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/operators/maintenance/${id}`, headers: admin.headers });
    expect(del.statusCode).toBe(200);
    expect(del.json().data.status).toBe('cancelled');
    await getTemporalClient().then((c) => c.workflow.getHandle(`maintenance-${id}`).result());
    expect((await outbox('system.maintenance_start')).filter((e) => e.aggregate_id === id)).toHaveLength(0);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/v1/operators/maintenance/mw_nope', headers: admin.headers })).statusCode).toBe(404);
  });
});

describe('system.status_change (readiness)', () => {
  it('a readiness change is written once per change, environment-wide, per environment', async () => {
    // The recorded status says Temporal was down; the next check observes it up: one change.
    await getPool().query(`INSERT INTO readiness_status (component, status) VALUES ('temporal', 'unavailable')
                           ON CONFLICT (component) DO UPDATE SET status = 'unavailable'`);
    expect(await checkReadinessAndAnnounce()).toEqual(['temporal']);
    expect(await checkReadinessAndAnnounce()).toEqual([]);
    const found = (await outbox('system.status_change')).filter((e) => e.data.resource === 'readiness');
    expect(found.map((e) => e.environment).sort()).toEqual(['production', 'sandbox']);
    expect(found[0]).toMatchObject({ user_id: null, data: { component: 'temporal', previous_status: 'unavailable', status: 'ok' } });
  });
});
