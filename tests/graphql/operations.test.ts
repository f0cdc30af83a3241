import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let op: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  op = await createTestUser({ admin: true });
});
afterAll(async () => t.close());

const rest = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

const CREATE_KEY = /* GraphQL */ `
  mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { id name prefix environment permissions status key createdAt } }
`;
const KEY_FIELDS = 'id name prefix environment permissions ipAllowlist expiresAt revokedAt lastUsedAt rotatedFrom agent status createdAt key';

describe('API keys over GraphQL', () => {
  it('createApiKey shows the value once; apiKey and apiKeys equal GET /api-keys; the new key authenticates', async () => {
    const made = (await gqlOk(t, CREATE_KEY, { input: { name: 'ci', permissions: ['read'] } })).createApiKey;
    expect(made).toMatchObject({ name: 'ci', environment: 'sandbox', permissions: ['read'], status: 'active' });
    expect(made.key).toMatch(/^sk_sandbox_/);
    expect(made.key.startsWith(made.prefix)).toBe(true);

    const viaRest = (await rest('GET', `/api/v2/api-keys/${made.id}`, t.headers)).json().data;
    const read = (await gqlOk(t, `query ($id: ID!) { apiKey(id: $id) { ${KEY_FIELDS} } }`, { id: made.id })).apiKey;
    expect(read).toEqual({
      id: viaRest.id,
      name: viaRest.name,
      prefix: viaRest.prefix,
      environment: viaRest.environment,
      permissions: viaRest.permissions,
      ipAllowlist: viaRest.ip_allowlist,
      expiresAt: viaRest.expires_at,
      revokedAt: viaRest.revoked_at,
      lastUsedAt: viaRest.last_used_at,
      rotatedFrom: viaRest.rotated_from,
      agent: viaRest.agent,
      status: viaRest.status,
      createdAt: viaRest.created_at,
      key: null,
    });
    const list = (await gqlOk(t, `{ apiKeys(perPage: 100) { data { id } paginatorInfo { total } } }`)).apiKeys;
    const restList = (await rest('GET', '/api/v2/api-keys?per_page=100', t.headers)).json();
    expect(list.data.map((k: { id: string }) => k.id)).toEqual(restList.data.map((k: { id: string }) => k.id));
    expect(list.paginatorInfo.total).toBe(restList.meta.pagination?.total ?? restList.data.length);

    expect((await rest('GET', '/api/v2/accounts', { authorization: `Bearer ${made.key}` })).statusCode).toBe(200);
  });

  it('revokeApiKey (delete permission) revokes at once; the key stops working', async () => {
    const made = (await gqlOk(t, CREATE_KEY, { input: { name: 'short-lived' } })).createApiKey;
    const revoked = (await gqlOk(t, `mutation ($id: ID!) { revokeApiKey(id: $id) { id status revokedAt key } }`, { id: made.id })).revokeApiKey;
    expect(revoked).toMatchObject({ id: made.id, status: 'revoked', key: null });
    expect((await rest('GET', `/api/v2/api-keys/${made.id}`, t.headers)).json().data.status).toBe('revoked');
    expect((await rest('GET', '/api/v2/accounts', { authorization: `Bearer ${made.key}` })).statusCode).toBe(401);
  });

  it('refusals carry the REST codes: more permissions than the key has, an invalid body, another user\'s key, a read-only key', async () => {
    const readOnly = await createTestUser({ permissions: ['read'] });
    const wider = await rest('POST', '/api/v2/api-keys', { ...readOnly.headers }, { name: 'x', permissions: ['read'] });
    expect(wider.statusCode).toBe(403);
    await gqlRefused(t, CREATE_KEY, 'INSUFFICIENT_PERMISSIONS', 403, { input: { name: 'x' } }, readOnly.headers);
    await gqlRefused(t, `mutation ($id: ID!) { revokeApiKey(id: $id) { id } }`, 'INSUFFICIENT_PERMISSIONS', 403, { id: 'whatever' }, readOnly.headers);

    const writer = await createTestUser({ permissions: ['read', 'write'] });
    const restWider = (await rest('POST', '/api/v2/api-keys', writer.headers, { name: 'x', permissions: ['read', 'delete'] })).json().errors[0];
    await gqlRefused(t, CREATE_KEY, restWider.code, Number(restWider.status), { input: { name: 'x', permissions: ['read', 'delete'] } }, writer.headers);

    // The REST body schema holds: a name over 100 characters is 422 VALIDATION_ERROR at /name.
    const long = await gqlRefused(t, CREATE_KEY, 'VALIDATION_ERROR', 422, { input: { name: 'n'.repeat(101) } });
    expect(long.errors![0].extensions.pointer).toBe('/name');

    const other = await createTestUser();
    const theirs = (await gqlOk(t, CREATE_KEY, { input: { name: 'theirs' } }, other.headers)).createApiKey;
    const restOther = await rest('GET', `/api/v2/api-keys/${theirs.id}`, t.headers);
    expect(restOther.statusCode).toBe(404);
    await gqlRefused(t, `query ($id: ID!) { apiKey(id: $id) { id } }`, restOther.json().errors[0].code, 404, { id: theirs.id });
    await gqlRefused(t, `mutation ($id: ID!) { revokeApiKey(id: $id) { id } }`, 'NOT_FOUND', 404, { id: theirs.id });
    expect((await rest('GET', `/api/v2/api-keys/${theirs.id}`, other.headers)).json().data.status).toBe('active');
  });
});

describe('maintenance windows over GraphQL (operators)', () => {
  const SCHEDULE = /* GraphQL */ `
    mutation ($input: ScheduleMaintenanceInput!) { scheduleMaintenance(input: $input) { id environment startsAt endsAt message status createdAt cancelledAt } }
  `;
  const inHours = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

  it('schedules, lists as GET /operators/maintenance does, and cancels', async () => {
    const w = (await gqlOk(t, SCHEDULE, { input: { startsAt: inHours(24), endsAt: inHours(25), message: 'database upgrade' } }, op.headers)).scheduleMaintenance;
    expect(w).toMatchObject({ environment: 'sandbox', message: 'database upgrade', status: 'scheduled', cancelledAt: null });

    const viaRest = (await rest('GET', '/api/v1/operators/maintenance', op.headers)).json().data;
    const list = (await gqlOk(t, `{ maintenanceWindows { data { id environment startsAt endsAt message status createdAt cancelledAt } paginatorInfo { total } } }`, undefined, op.headers)).maintenanceWindows;
    expect(list.paginatorInfo.total).toBe(viaRest.length);
    expect(list.data).toEqual(
      viaRest.map((x: Record<string, unknown>) => ({
        id: x.id,
        environment: x.environment,
        startsAt: x.starts_at,
        endsAt: x.ends_at,
        message: x.message,
        status: x.status,
        createdAt: x.created_at,
        cancelledAt: x.cancelled_at,
      })),
    );

    const cancelled = (await gqlOk(t, `mutation ($id: ID!) { cancelMaintenance(id: $id) { id status cancelledAt } }`, { id: w.id }, op.headers)).cancelMaintenance;
    expect(cancelled).toMatchObject({ id: w.id, status: 'cancelled' });
    expect((await rest('GET', '/api/v1/operators/maintenance', op.headers)).json().data.map((x: { id: string }) => x.id)).not.toContain(w.id);
  });

  it('refusals carry the REST codes: ends before it starts, unknown window, a customer, a read-only operator key', async () => {
    const bad = await gqlRefused(t, SCHEDULE, 'VALIDATION_ERROR', 422, { input: { startsAt: inHours(5), endsAt: inHours(4), message: 'x' } }, op.headers);
    expect(bad.errors![0].extensions.pointer).toBe('/ends_at');
    const restMissing = await rest('DELETE', '/api/v1/operators/maintenance/mw_nope', op.headers);
    await gqlRefused(t, `mutation { cancelMaintenance(id: "mw_nope") { id } }`, restMissing.json().errors[0].code, restMissing.statusCode, undefined, op.headers);
    await gqlRefused(t, SCHEDULE, 'ADMIN_REQUIRED', 403, { input: { startsAt: inHours(24), endsAt: inHours(25), message: 'x' } });
    await gqlRefused(t, `{ maintenanceWindows { data { id } } }`, 'ADMIN_REQUIRED', 403);
    const readOnlyOp = await createTestUser({ admin: true, permissions: ['read'] });
    await gqlRefused(t, SCHEDULE, 'INSUFFICIENT_PERMISSIONS', 403, { input: { startsAt: inHours(24), endsAt: inHours(25), message: 'x' } }, readOnlyOp.headers);
    expect((await rest('GET', '/api/v1/operators/maintenance', op.headers)).json().data).toEqual([]);
  });
});
