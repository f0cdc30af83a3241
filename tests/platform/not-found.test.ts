/**
 * "No such resource for this caller" is the domain's decision (issue 43): the webhook, API key and
 * OAuth client functions throw NOT_FOUND for another user's record, and the transports only render
 * it. The exact answers REST gave when its routes decided it (404, NOT_FOUND, "<what> not found"),
 * and GraphQL's same code, status and message.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { gql } from '../graphql/helpers';

let t: TestApp;
let other: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  other = await createTestUser();
});
afterAll(async () => t.close());
beforeEach(() => {
  // A local receiver URL (no DNS in tests), as tests/webhooks does.
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const rest = (method: Method, url: string, headers: Record<string, string>, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

async function expectNotFound(what: string, calls: Array<[Method, string, object?]>) {
  for (const [method, url, payload] of calls) {
    const r = await rest(method, url, other.headers, payload);
    expect([method, url, r.statusCode]).toEqual([method, url, 404]);
    expect(r.json().errors).toEqual([{ status: '404', code: 'NOT_FOUND', title: 'Not Found', detail: `${what} not found` }]);
  }
}

async function expectGqlNotFound(what: string, query: string, variables: Record<string, unknown>) {
  const r = await gql(t, query, variables, other.headers);
  expect(r.errors).toHaveLength(1);
  expect(r.errors![0]).toMatchObject({ message: `${what} not found`, extensions: { code: 'NOT_FOUND', status: 404 } });
}

describe("another user's records are NOT_FOUND, decided by the domain", () => {
  it('webhooks: read, change, delete, rotate, deliveries (REST and GraphQL)', async () => {
    const made = await rest('POST', '/api/v2/webhooks', t.headers, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.id as string;
    await expectNotFound('Webhook', [
      ['GET', `/api/v2/webhooks/${id}`],
      ['PUT', `/api/v2/webhooks/${id}`, { active: false }],
      ['POST', `/api/v2/webhooks/${id}/rotate-secret`, {}],
      ['GET', `/api/v2/webhooks/${id}/deliveries`],
      ['DELETE', `/api/v2/webhooks/${id}`],
    ]);
    await expectGqlNotFound('Webhook', 'query ($id: ID!) { webhook(id: $id) { id } }', { id });
    await expectGqlNotFound('Webhook', 'query ($id: ID!) { webhookDeliveries(webhookId: $id) { data { id } } }', { id });
    await expectGqlNotFound('Webhook', 'mutation ($id: ID!) { updateWebhook(id: $id, input: { active: false }) { id } }', { id });
    await expectGqlNotFound('Webhook', 'mutation ($id: ID!) { rotateWebhookSecret(id: $id) { id } }', { id });
    await expectGqlNotFound('Webhook', 'mutation ($id: ID!) { deleteWebhook(id: $id) { id } }', { id });
    // Still there for its owner.
    expect((await rest('GET', `/api/v2/webhooks/${id}`, t.headers)).json().data).toMatchObject({ id, active: true });
  });

  it('API keys: read, revoke, rotate (REST and GraphQL)', async () => {
    const made = await rest('POST', '/api/v2/api-keys', t.headers, { name: 'theirs' });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.id as string;
    await expectNotFound('API key', [
      ['GET', `/api/v2/api-keys/${id}`],
      ['POST', `/api/v2/api-keys/${id}/rotate`, {}],
      ['DELETE', `/api/v2/api-keys/${id}`],
    ]);
    await expectGqlNotFound('API key', 'query ($id: ID!) { apiKey(id: $id) { id } }', { id });
    await expectGqlNotFound('API key', 'mutation ($id: ID!) { revokeApiKey(id: $id) { id } }', { id });
    expect((await rest('GET', `/api/v2/api-keys/${id}`, t.headers)).json().data).toMatchObject({ id, status: 'active' });
  });

  it('OAuth clients: read, delete (REST)', async () => {
    const made = await rest('POST', '/api/v2/oauth/clients', t.headers, { name: 'theirs', client_type: 'public', redirect_uris: ['https://app.example.test/cb'], scopes: ['read'] });
    expect(made.statusCode).toBe(201);
    const id = made.json().data.client_id as string;
    await expectNotFound('OAuth client', [
      ['GET', `/api/v2/oauth/clients/${id}`],
      ['DELETE', `/api/v2/oauth/clients/${id}`],
    ]);
    expect((await rest('GET', `/api/v2/oauth/clients/${id}`, t.headers)).statusCode).toBe(200);
  });
});
