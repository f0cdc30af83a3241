/**
 * Webhook signing secrets at rest and their rotation grace (docs/webhooks.md "Secrets at rest",
 * "Signatures"): real PostgreSQL, a real Temporal worker and a real HTTP receiver.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { dispatchOnce } from '../../domain/events/dispatcher';
import { secretBox } from '../../domain/platform/secret-box';
import { resealWebhookSecrets } from '../../domain/webhooks/secrets';
import { verifySignature, verifySignatureV2 } from '../../domain/webhooks/signature';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { TEST_MASTER_KEYS } from '../helpers/db';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { gqlOk, gqlRefused } from '../graphql/helpers';
import { startReceiver, type Received, type Receiver } from './receiver';

let t: TestApp;
let w: TestWorker;
let rx: Receiver;
beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  t = await createTestApp();
  w = await startTestWorker();
  rx = await startReceiver();
});
afterAll(async () => {
  process.env.SECRETS_MASTER_KEYS = TEST_MASTER_KEYS;
  await rx?.close();
  await w?.stop();
  await t?.close();
});
beforeEach(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  process.env.SECRETS_MASTER_KEYS = TEST_MASTER_KEYS;
  rx.respond = () => 200;
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: unknown) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function dispatch() {
  for (;;) if ((await dispatchOnce()).events === 0) return;
}

/** A user with one webhook on account.created; returns the user, the webhook id and its secret. */
async function hooked(): Promise<{ user: TestUser; id: string; secret: string }> {
  const user = await createTestUser();
  const r = await call('POST', '/api/v2/webhooks', user.headers, { url: rx.url, events: ['account.created'] });
  expect(r.statusCode).toBe(201);
  return { user, id: r.json().data.id, secret: r.json().data.secret };
}

/** One event for the user's webhooks, delivered: the request the receiver got. */
async function deliverOne(user: TestUser): Promise<Received> {
  const before = rx.received.length;
  expect((await call('POST', '/api/v2/accounts', user.headers, { name: 'hooked' })).statusCode).toBe(201);
  await dispatch();
  return (await rx.waitFor(before + 1))[before];
}

const row = async (id: string) =>
  (
    await getPool().query<{ secret_sealed: string; previous_secret_sealed: string | null; previous_secret_expires_at: Date | null; text: string }>(
      'SELECT secret_sealed, previous_secret_sealed, previous_secret_expires_at, row_to_json(w)::text AS text FROM webhooks w WHERE id = $1',
      [id],
    )
  ).rows[0];

const hmac = (secret: string, content: string) => createHmac('sha256', secret).update(content).digest('hex');

describe('secrets at rest', () => {
  it('create and rotate store sealed values only (no readable column left); the start-up re-sealing is idempotent', async () => {
    const { user, id, secret } = await hooked();
    let r = await row(id);
    // The readable column is gone (20261207093500_webhook_secret_column_dropped; the upgrade: tests/platform/schema.test.ts).
    expect(Object.keys(JSON.parse(r.text))).not.toContain('secret');
    expect(r.secret_sealed).toMatch(/^v1\.test-1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(r.text).not.toContain(secret);
    expect(secretBox().open(r.secret_sealed, id)).toBe(secret);
    // A secret given by the caller is sealed the same way.
    const given = await call('POST', '/api/v2/webhooks', user.headers, { url: rx.url, events: ['transfer.completed'], secret: 'my-own-secret-of-enough-length' });
    expect((await row(given.json().data.id)).text).not.toContain('my-own-secret-of-enough-length');

    const rot = await call('POST', `/api/v2/webhooks/${id}/rotate-secret`, user.headers);
    expect(rot.statusCode).toBe(201);
    const fresh = rot.json().data.secret as string;
    r = await row(id);
    expect(r.text).not.toContain(secret);
    expect(r.text).not.toContain(fresh);
    expect(secretBox().open(r.secret_sealed, id)).toBe(fresh);
    expect(secretBox().open(r.previous_secret_sealed!, id)).toBe(secret);

    // Everything is under the current key already: the start-up step changes nothing.
    expect(await resealWebhookSecrets()).toEqual({ resealed: 0, unreadable: [] });
    expect((await row(id)).secret_sealed).toBe(r.secret_sealed);
    const got = await deliverOne(user);
    expect((got.headers['x-webhook-signature'] as string).split(',')).toEqual([hmac(fresh, got.body), hmac(secret, got.body)]);
  });

  it('the API shows a secret only in the create and rotate answers', async () => {
    const { user, id } = await hooked();
    for (const url of [`/api/v2/webhooks/${id}`, '/api/v2/webhooks']) {
      const body = (await call('GET', url, user.headers)).body;
      expect(body).not.toMatch(/"secret"|secret_sealed|v1\.test-1\./);
    }
    const put = await call('PUT', `/api/v2/webhooks/${id}`, user.headers, { description: 'x' });
    expect(put.body).not.toMatch(/"secret"|secret_sealed/);
  });
});

describe('rotation grace', () => {
  it('during the grace each delivery carries both signatures, the new first; after it only the new', async () => {
    const { user, id, secret: old } = await hooked();
    const rot = await call('POST', `/api/v2/webhooks/${id}/rotate-secret`, user.headers, {});
    const fresh = rot.json().data.secret as string;
    const until = Date.parse(rot.json().data.previous_secret_expires_at);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const during = await deliverOne(user);
    const v1 = (during.headers['x-webhook-signature'] as string).split(',');
    expect(v1).toEqual([hmac(fresh, during.body), hmac(old, during.body)]);
    const v2 = during.headers['x-webhook-signature-v2'] as string;
    const ts = during.headers['x-webhook-timestamp'] as string;
    expect(v2).toBe(`t=${ts},v1=${hmac(fresh, `${ts}.${during.body}`)},v1=${hmac(old, `${ts}.${during.body}`)}`);
    expect(verifySignatureV2(fresh, during.body, v2)).toBe(true);
    expect(verifySignatureV2(old, during.body, v2)).toBe(true);
    expect(verifySignatureV2('whsec_someone_else', during.body, v2)).toBe(false);
    // A stale timestamp is refused whatever the signature (receivers: 5 minutes).
    expect(verifySignatureV2(fresh, during.body, v2, 300, Number(ts) + 301)).toBe(false);
    expect(verifySignature(old, during.body, v1.join(','))).toBe(true);

    // Time moves on: the grace is over.
    await getPool().query(`UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    expect((await call('GET', `/api/v2/webhooks/${id}`, user.headers)).json().data.previous_secret_expires_at).toBeNull();
    const after = await deliverOne(user);
    expect(after.headers['x-webhook-signature']).toBe(hmac(fresh, after.body));
    const v2after = after.headers['x-webhook-signature-v2'] as string;
    expect(v2after.match(/v1=/g)).toHaveLength(1);
    expect(verifySignatureV2(fresh, after.body, v2after)).toBe(true);
    expect(verifySignatureV2(old, after.body, v2after)).toBe(false);
  });

  it('a rotation may ask for a shorter grace (0: none), never a longer one; GraphQL takes the same argument and check', async () => {
    const { user, id, secret: old } = await hooked();
    const none = await call('POST', `/api/v2/webhooks/${id}/rotate-secret`, user.headers, { grace_hours: 0 });
    expect(none.statusCode).toBe(201);
    expect(none.json().data.previous_secret_expires_at).toBeNull();
    expect((await row(id)).previous_secret_sealed).toBeNull();
    const got = await deliverOne(user);
    expect(got.headers['x-webhook-signature']).toBe(hmac(none.json().data.secret, got.body));
    expect(verifySignature(old, got.body, got.headers['x-webhook-signature'] as string)).toBe(false);

    const two = await call('POST', `/api/v2/webhooks/${id}/rotate-secret`, user.headers, { grace_hours: 2 });
    expect(Date.parse(two.json().data.previous_secret_expires_at) - Date.now()).toBeGreaterThan(1.9 * 3600_000);
    const long = await call('POST', `/api/v2/webhooks/${id}/rotate-secret`, user.headers, { grace_hours: 25 });
    expect(long.statusCode).toBe(422);
    expect(long.json().errors[0]).toMatchObject({ code: 'INVALID_GRACE_PERIOD' });
    for (const bad of [{ grace_hours: -1 }, { grace_hours: 1.5 }, { grace_hours: '2' }, { other: 1 }]) {
      const r = await call('POST', `/api/v2/webhooks/${id}/rotate-secret`, user.headers, bad);
      expect(r.statusCode, JSON.stringify(bad)).toBe(422);
      expect(r.json().errors[0].code).toBe('VALIDATION_ERROR');
    }

    const q = `mutation ($id: ID!, $g: Int) { rotateWebhookSecret(id: $id, graceHours: $g) { secret previousSecretExpiresAt } }`;
    const g1 = (await gqlOk(t, q, { id, g: 1 }, user.headers)).rotateWebhookSecret;
    expect(g1.secret).toMatch(/^whsec_/);
    expect(Date.parse(g1.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(0.9 * 3600_000);
    expect((await gqlOk(t, q, { id }, user.headers)).rotateWebhookSecret.previousSecretExpiresAt).not.toBeNull();
    expect((await gqlOk(t, q, { id, g: 0 }, user.headers)).rotateWebhookSecret.previousSecretExpiresAt).toBeNull();
    const refused = await gqlRefused(t, q, 'VALIDATION_ERROR', 422, { id, g: -1 }, user.headers);
    expect(refused.errors![0].extensions.pointer).toBe('/grace_hours');
    await gqlRefused(t, q, 'INVALID_GRACE_PERIOD', 422, { id, g: 48 }, user.headers);
    // Rotating again during a grace: only the secret just replaced stays valid.
    const a = (await gqlOk(t, q, { id, g: 5 }, user.headers)).rotateWebhookSecret.secret;
    const b = (await gqlOk(t, q, { id, g: 5 }, user.headers)).rotateWebhookSecret.secret;
    const d = await deliverOne(user);
    expect((d.headers['x-webhook-signature'] as string).split(',')).toEqual([hmac(b, d.body), hmac(a, d.body)]);
  });
});

describe('unopenable secrets and master key rotation', () => {
  it('a tampered sealed value stops the delivery loudly (nothing sent, reason recorded); restored, it goes out', async () => {
    const { user, id, secret } = await hooked();
    const sealed = (await row(id)).secret_sealed!;
    const parts = sealed.split('.');
    parts[4] = (parts[4][0] === 'A' ? 'B' : 'A') + parts[4].slice(1);
    await getPool().query('UPDATE webhooks SET secret_sealed = $2 WHERE id = $1', [id, parts.join('.')]);
    const before = rx.received.length;
    expect((await call('POST', '/api/v2/accounts', user.headers, { name: 'hooked' })).statusCode).toBe(201);
    await dispatch();
    const deadline = Date.now() + 20_000;
    let d: { id: string; status: string; attempt_count: number; last_error: string | null } | undefined;
    while (Date.now() < deadline) {
      d = (await getPool().query('SELECT id, status, attempt_count, last_error FROM webhook_deliveries WHERE webhook_id = $1', [id])).rows[0];
      if (d?.last_error) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(d!.last_error).toMatch(/signing secret cannot be opened: sealed secret failed authentication under master key "test-1"/);
    expect(d!.last_error).not.toContain(secret);
    expect(d!.status).toBe('pending');
    expect(d!.attempt_count).toBe(0);
    expect(rx.received.length).toBe(before);
    // The start-up step re-seals only other keys' values: it leaves this one as it is.
    await resealWebhookSecrets();
    expect((await row(id)).secret_sealed).toBe(parts.join('.'));
    // The value restored (e.g. from a backup): the activity's next retry delivers, correctly signed.
    await getPool().query('UPDATE webhooks SET secret_sealed = $2 WHERE id = $1', [id, sealed]);
    const got = (await rx.waitFor(before + 1, 40_000))[before];
    expect(got.headers['x-webhook-signature']).toBe(hmac(secret, got.body));
  });

  it('a row sealed under an old master key still opens once a new key is added first, and is re-sealed at start-up', async () => {
    const { user, id, secret } = await hooked();
    const oldKey = TEST_MASTER_KEYS;
    const newKey = `test-2:${randomBytes(32).toString('base64')}`;
    process.env.SECRETS_MASTER_KEYS = `${newKey},${oldKey}`;
    expect((await row(id)).secret_sealed!.startsWith('v1.test-1.')).toBe(true);
    let got = await deliverOne(user);
    expect(got.headers['x-webhook-signature']).toBe(hmac(secret, got.body));
    // New writes use the new key.
    const other = await hooked();
    expect((await row(other.id)).secret_sealed!.startsWith('v1.test-2.')).toBe(true);
    // Re-sealing at start-up, then the old key can go.
    const report = await resealWebhookSecrets();
    expect(report.resealed).toBeGreaterThanOrEqual(1);
    expect(report.unreadable).toEqual([]);
    const { rows } = await getPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM webhooks WHERE secret_sealed NOT LIKE 'v1.test-2.%'`);
    expect(rows[0].n).toBe(0);
    process.env.SECRETS_MASTER_KEYS = newKey;
    got = await deliverOne(user);
    expect(got.headers['x-webhook-signature']).toBe(hmac(secret, got.body));
    // Back on the old key alone, the re-sealed rows do not open: an error naming the missing key.
    process.env.SECRETS_MASTER_KEYS = oldKey;
    expect((await resealWebhookSecrets()).unreadable).toContain(id);
    process.env.SECRETS_MASTER_KEYS = `${oldKey},${newKey}`;
    // Rows sealed under test-2 are re-sealed back under test-1 (the first key): every row opens with test-1 alone.
    await resealWebhookSecrets();
    process.env.SECRETS_MASTER_KEYS = oldKey;
    expect(await resealWebhookSecrets()).toEqual({ resealed: 0, unreadable: [] });
  });
});
