import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app';
import { getPool } from '../../domain/db/pool';
import { MemoryRateLimiter } from '../../domain/platform/rate-limiter';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('envelope and errors', () => {
  it('health is public; ready reports database and Temporal up', async () => {
    const h = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(h.statusCode).toBe(200);
    expect(h.json().data.status).toBe('ok');
    const r = await t.app.inject({ method: 'GET', url: '/api/ready' });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.components).toEqual({ database: 'up', temporal: 'up' });
  });

  it('ready is 503 and names Temporal when it cannot be reached', async () => {
    const saved = process.env.TEMPORAL_ADDRESS;
    const { closeTemporal } = await import('../../domain/temporal/client');
    await closeTemporal();
    process.env.TEMPORAL_ADDRESS = '127.0.0.1:1';
    try {
      const r = await t.app.inject({ method: 'GET', url: '/api/ready' });
      expect(r.statusCode).toBe(503);
      expect(r.json().meta.components).toEqual({ database: 'up', temporal: 'down' });
      expect(r.json().errors[0].detail).toContain('temporal');
    } finally {
      await closeTemporal();
      process.env.TEMPORAL_ADDRESS = saved;
    }
  });

  it('unknown routes get a 404 envelope, with a request id echoed or generated', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v2/nope', headers: { 'x-request-id': 'req-abc.123' } });
    expect(r.statusCode).toBe(404);
    expect(r.headers['x-request-id']).toBe('req-abc.123');
    expect(r.json()).toMatchObject({ data: null, errors: [{ status: '404', code: 'ROUTE_NOT_FOUND' }], meta: { request_id: 'req-abc.123' } });
    const g = await t.app.inject({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(g.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('missing and malformed credentials are 401 with the envelope', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/api/auth/user' });
    expect(none.statusCode).toBe(401);
    expect(none.json().errors[0]).toMatchObject({ code: 'UNAUTHENTICATED', source: { header: 'authorization' } });
    expect(none.headers['www-authenticate']).toContain('Bearer');
    const bogusKey = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: 'Bearer sk_sandbox_' + 'x'.repeat(43) } });
    expect(bogusKey.json().errors[0].code).toBe('INVALID_CREDENTIALS');
    const bogusJwt = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' } });
    expect(bogusJwt.statusCode).toBe(401);
    const basic = await t.app.inject({ method: 'GET', url: '/api/auth/user', headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.statusCode).toBe(401);
  });

  it('malformed JSON is 400, wrong types and unknown fields 422 with pointers, oversized 413; nothing is written', async () => {
    const count = async () => (await getPool().query('SELECT count(*)::int AS n FROM api_keys')).rows[0].n as number;
    const before = await count();
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v2/api-keys',
      headers: { ...t.headers, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].code).toBe('MALFORMED_BODY');

    const types = await t.app.inject({
      method: 'POST',
      url: '/api/v2/api-keys',
      headers: t.headers,
      payload: { name: 42, permissions: ['read', 'sudo'], colour: 'blue' },
    });
    expect(types.statusCode).toBe(422);
    const pointers = types.json().errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort();
    expect(pointers).toEqual(['/colour', '/name', '/permissions/1']);
    expect(types.json().errors.every((e: { code: string }) => e.code === 'VALIDATION_ERROR')).toBe(true);

    const long = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: t.headers, payload: { name: 'x'.repeat(101) } });
    expect(long.statusCode).toBe(422);

    const big = await t.app.inject({
      method: 'POST',
      url: '/api/v2/api-keys',
      headers: { ...t.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().errors[0].code).toBe('PAYLOAD_TOO_LARGE');

    const query = await t.app.inject({ method: 'GET', url: '/api/v2/api-keys?per_page=500', headers: t.headers });
    expect(query.statusCode).toBe(422);
    expect(query.json().errors[0].source.parameter).toBe('per_page');
    expect(await count()).toBe(before);
  });

  it('permissions follow the method: a read-only key cannot write or delete', async () => {
    const ro = await createTestUser({ permissions: ['read'] });
    const del = await t.app.inject({ method: 'DELETE', url: '/api/v2/api-keys/key_x', headers: ro.headers });
    expect(del.statusCode).toBe(403);
    expect(del.json().errors[0].code).toBe('INSUFFICIENT_PERMISSIONS');
  });
});

describe('rate limits', () => {
  it('carries X-RateLimit headers and answers 429 with Retry-After past the burst limit', async () => {
    process.env.RATE_LIMIT_PER_MINUTE = '5';
    const app = await buildApp({ logger: false, rateLimiter: new MemoryRateLimiter() });
    try {
      const u = await createTestUser();
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 7; i++) {
        last = await app.inject({ method: 'GET', url: '/api/auth/user', headers: u.headers });
        statuses.push(last.statusCode);
        expect(last.headers['x-ratelimit-limit']).toBe('5');
        expect(Number(last.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([429, 429]);
      expect(last!.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(last!.json().errors[0].code).toBe('RATE_LIMITED');
      // Another key has its own window.
      const other = await createTestUser();
      expect((await app.inject({ method: 'GET', url: '/api/auth/user', headers: other.headers })).statusCode).toBe(200);
    } finally {
      process.env.RATE_LIMIT_PER_MINUTE = '100000';
      await app.close();
    }
  });

  it('shares one window across instances through Redis', async () => {
    const { RedisRateLimiter } = await import('../../domain/platform/rate-limiter');
    // The run's redis-server (tests/helpers/global-setup.ts: embedded unless TEST_REDIS_URL is set).
    const a = new RedisRateLimiter(inject('redisUrl'));
    const b = new RedisRateLimiter(inject('redisUrl'));
    const key = `test-${Date.now()}-${Math.random()}`;
    const w = [{ limit: 3, windowSeconds: 60 }];
    const results = [await a.hit(key, w), await b.hit(key, w), await a.hit(key, w), await b.hit(key, w)];
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[2].remaining).toBe(0);
    await a.close();
    await b.close();
  });
});

describe('idempotency', () => {
  const create = (key: string, name: string, headers = t.headers) =>
    t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: { ...headers, 'idempotency-key': key }, payload: { name } });

  it('replays the stored response for the same key and body, and writes once', async () => {
    const first = await create('idem-1', 'once');
    const second = await create('idem-1', 'once');
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.id).toBe(first.json().data.id);
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM api_keys WHERE name = 'once'`);
    expect(rows[0].n).toBe(1);
  });

  it('the same key with another body is 409, and keys are scoped per credential', async () => {
    await create('idem-2', 'a');
    const conflict = await create('idem-2', 'b');
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().errors[0].code).toBe('IDEMPOTENCY_KEY_REUSED');
    const other = await createTestUser();
    expect((await create('idem-2', 'b', other.headers)).statusCode).toBe(201);
  });

  it('a request still in flight with the key is 409', async () => {
    const { rows } = await getPool().query(`SELECT id FROM api_keys WHERE key_hash = encode(sha256($1::bytea), 'hex')`, [t.user.key]);
    // A first request with this key and body that has not finished (its lock is fresh).
    const hash = createHash('sha256').update('POST /api/v2/api-keys\n{"name":"c"}').digest('hex');
    await getPool().query(
      `INSERT INTO idempotency_keys (scope, key, method, path, request_hash, state, expires_at)
       VALUES ($1, 'idem-3', 'POST', '/api/v2/api-keys', $2, 'in_flight', now() + interval '1 day')`,
      [rows[0].id, hash],
    );
    const r = await create('idem-3', 'c');
    expect(r.statusCode).toBe(409);
    expect(r.json().errors[0].code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    // Once the lock is stale (the first request's process died), a retry may take the key over.
    await getPool().query(`UPDATE idempotency_keys SET locked_at = now() - interval '5 minutes' WHERE key = 'idem-3'`);
    expect((await create('idem-3', 'c')).statusCode).toBe(201);
  });

  it('validation failures are stored too, and invalid keys refused', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: { ...t.headers, 'idempotency-key': 'idem-4' }, payload: { name: '' } });
    expect(bad.statusCode).toBe(422);
    const again = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: { ...t.headers, 'idempotency-key': 'idem-4' }, payload: { name: '' } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const invalid = await t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: { ...t.headers, 'idempotency-key': 'has space' }, payload: { name: 'x' } });
    expect(invalid.statusCode).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('publishes an OpenAPI 3 document with request and response schemas, and the docs page', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(r.statusCode).toBe(200);
    const doc = r.json();
    expect(doc.openapi).toMatch(/^3\./);
    const create = doc.paths['/api/v2/api-keys'].post;
    expect(create.requestBody.content['application/json'].schema.required).toContain('name');
    expect(create.responses['201']).toBeDefined();
    expect(create.responses['422']).toBeDefined();
    const docs = await t.app.inject({ method: 'GET', url: '/api/documentation/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger');
  });
});
