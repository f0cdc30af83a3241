import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { gqlOk, gqlRefused } from './helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());
beforeEach(() => {
  // Local receivers (no DNS in tests), as tests/webhooks does.
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
});

const rest = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

const FIELDS = 'id url events description active status environment consecutiveFailures disabledAt disabledReason secretRotatedAt createdAt updatedAt secret';
const CREATE = `mutation ($input: CreateWebhookInput!) { createWebhook(input: $input) { ${FIELDS} } }`;
const URL = 'http://127.0.0.1:9/hook';

const fromRest = (w: Record<string, unknown>) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  active: w.active,
  status: w.status,
  environment: w.environment,
  consecutiveFailures: w.consecutive_failures,
  disabledAt: w.disabled_at,
  disabledReason: w.disabled_reason,
  secretRotatedAt: w.secret_rotated_at,
  createdAt: w.created_at,
  updatedAt: w.updated_at,
  secret: w.secret ?? null,
});

describe('webhooks over GraphQL', () => {
  it('the event catalog is the REST one', async () => {
    const g = (await gqlOk(t, `{ webhookEventTypes(perPage: 100) { data { type group produced dataSchema } paginatorInfo { total } } }`)).webhookEventTypes;
    const r = (await rest('GET', '/api/v2/webhooks/events', t.headers)).json();
    expect(g.paginatorInfo.total).toBe(r.meta.total);
    expect(g.paginatorInfo.total).toBe(EVENT_CATALOG.length);
    expect(g.data).toEqual(r.data.slice(0, 100).map((e: Record<string, unknown>) => ({ type: e.type, group: e.group, produced: e.produced, dataSchema: e.data_schema })));
  });

  it('creates (secret shown once), reads as REST does, updates, rotates the secret and deletes', async () => {
    const made = (await gqlOk(t, CREATE, { input: { url: URL, events: ['transfer.completed', 'account.created'], description: 'ops' } })).createWebhook;
    expect(made).toMatchObject({ url: URL, events: ['account.created', 'transfer.completed'], active: true, status: 'active', environment: 'sandbox' });
    expect(made.secret).toMatch(/^whsec_/);

    const viaRest = (await rest('GET', `/api/v2/webhooks/${made.id}`, t.headers)).json().data;
    const read = (await gqlOk(t, `query ($id: ID!) { webhook(id: $id) { ${FIELDS} } }`, { id: made.id })).webhook;
    expect(read).toEqual(fromRest(viaRest));
    expect(read.secret).toBeNull();
    const list = (await gqlOk(t, `{ webhooks { data { ${FIELDS} } paginatorInfo { total } } }`)).webhooks;
    const restList = (await rest('GET', '/api/v2/webhooks', t.headers)).json();
    expect(list.data).toEqual(restList.data.map(fromRest));

    const updated = (await gqlOk(t, `mutation ($id: ID!) { updateWebhook(id: $id, input: { active: false, description: null }) { active status description events } }`, { id: made.id })).updateWebhook;
    expect(updated).toEqual({ active: false, status: 'inactive', description: null, events: ['account.created', 'transfer.completed'] });
    expect((await rest('GET', `/api/v2/webhooks/${made.id}`, t.headers)).json().data).toMatchObject({ active: false, description: null });

    const rotated = (await gqlOk(t, `mutation ($id: ID!) { rotateWebhookSecret(id: $id) { secret secretRotatedAt } }`, { id: made.id })).rotateWebhookSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(made.secret);
    expect(rotated.secretRotatedAt).not.toBeNull();

    const deliveries = (await gqlOk(t, `query ($id: ID!) { webhookDeliveries(webhookId: $id) { data { id } paginatorInfo { total } } }`, { id: made.id })).webhookDeliveries;
    expect(deliveries.paginatorInfo.total).toBe((await rest('GET', `/api/v2/webhooks/${made.id}/deliveries`, t.headers)).json().data.length);

    expect((await gqlOk(t, `mutation ($id: ID!) { deleteWebhook(id: $id) { id } }`, { id: made.id })).deleteWebhook.id).toBe(made.id);
    expect((await rest('GET', `/api/v2/webhooks/${made.id}`, t.headers)).statusCode).toBe(404);
  });

  it('refusals carry the REST codes: unknown event, a short secret, a replay on an inactive or unknown delivery', async () => {
    const restUnknown = (await rest('POST', '/api/v2/webhooks', t.headers, { url: URL, events: ['no.such_event'] })).json().errors[0];
    expect(restUnknown.code).toBe('UNKNOWN_EVENT_TYPE');
    const r = await gqlRefused(t, CREATE, 'UNKNOWN_EVENT_TYPE', 422, { input: { url: URL, events: ['no.such_event'] } });
    expect(r.errors![0].extensions.pointer).toBe('/events');
    // The REST body schema holds: a secret under 16 characters is 422 VALIDATION_ERROR at /secret.
    const short = await gqlRefused(t, CREATE, 'VALIDATION_ERROR', 422, { input: { url: URL, events: ['*'], secret: 'short' } });
    expect(short.errors![0].extensions.pointer).toBe('/secret');

    const made = (await gqlOk(t, CREATE, { input: { url: URL, events: ['*'] } })).createWebhook;
    const restReplay = await rest('POST', `/api/v2/webhooks/${made.id}/deliveries/whdel_nope/replay`, t.headers);
    await gqlRefused(t, `mutation ($id: ID!) { replayWebhookDelivery(webhookId: $id, deliveryId: "whdel_nope") { id } }`, restReplay.json().errors[0].code, restReplay.statusCode, { id: made.id });
  });

  it("another user's webhook is the REST not-found; a read-only key cannot create or delete", async () => {
    const other = await createTestUser();
    const theirs = (await gqlOk(t, CREATE, { input: { url: URL, events: ['*'] } }, other.headers)).createWebhook;
    const restOther = await rest('GET', `/api/v2/webhooks/${theirs.id}`, t.headers);
    expect(restOther.statusCode).toBe(404);
    const code = restOther.json().errors[0].code;
    await gqlRefused(t, `query ($id: ID!) { webhook(id: $id) { id } }`, code, 404, { id: theirs.id });
    await gqlRefused(t, `query ($id: ID!) { webhookDeliveries(webhookId: $id) { data { id } } }`, code, 404, { id: theirs.id });
    await gqlRefused(t, `mutation ($id: ID!) { updateWebhook(id: $id, input: { active: false }) { id } }`, code, 404, { id: theirs.id });
    await gqlRefused(t, `mutation ($id: ID!) { deleteWebhook(id: $id) { id } }`, code, 404, { id: theirs.id });
    expect((await rest('GET', `/api/v2/webhooks/${theirs.id}`, other.headers)).json().data.active).toBe(true);

    const readOnly = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, CREATE, 'INSUFFICIENT_PERMISSIONS', 403, { input: { url: URL, events: ['*'] } }, readOnly.headers);
    const writer = await createTestUser({ permissions: ['read', 'write'] });
    const mine = (await gqlOk(t, CREATE, { input: { url: URL, events: ['*'] } }, writer.headers)).createWebhook;
    await gqlRefused(t, `mutation ($id: ID!) { deleteWebhook(id: $id) { id } }`, 'INSUFFICIENT_PERMISSIONS', 403, { id: mine.id }, writer.headers);
  });
});
