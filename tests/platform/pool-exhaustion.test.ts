/**
 * Exhaustion is an answer, not a hang: with one pooled connection (DB_POOL_MAX=1) held by the test,
 * a request that needs the database is refused 503 DATABASE_SATURATED with Retry-After once
 * DB_ACQUIRE_TIMEOUT_MS has passed, through REST, GraphQL and MCP alike; /api/ready says the
 * database is saturated; an Idempotency-Key refused so is free for the retry. The test holds and
 * releases the connection itself: no timing decides what a request finds.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyWritesSettled } from '../../api/plugins/idempotency';
import { getPool, PoolExhaustedError } from '../../domain/db/pool';
import { getPrisma } from '../../domain/db/prisma';
import { guarded, type McpToolContext } from '../../api/mcp/results';
import { createTestApp, type TestApp } from '../helpers/app';
import { newIdempotencyKey } from '../helpers/idempotency';
import { gql, gqlOk } from '../graphql/helpers';

const ACQUIRE_MS = 300;
// Far above ACQUIRE_MS (the test machine may be slow), far below a hang.
const ANSWER_WITHIN_MS = 10_000;

let t: TestApp;
const saved = { max: process.env.DB_POOL_MAX, acquire: process.env.DB_ACQUIRE_TIMEOUT_MS };

beforeAll(async () => {
  process.env.DB_POOL_MAX = '1';
  process.env.DB_ACQUIRE_TIMEOUT_MS = String(ACQUIRE_MS);
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
  for (const [name, value] of [['DB_POOL_MAX', saved.max], ['DB_ACQUIRE_TIMEOUT_MS', saved.acquire]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Takes the pool's only connection (outside any request's context); the returned function gives it back. */
async function holdTheConnection(): Promise<() => void> {
  const client = await getPool().connect();
  return () => client.release();
}

/** Runs fn while the test holds the only connection, and how long it took. */
async function whileHeld<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const release = await holdTheConnection();
  try {
    const started = performance.now();
    const result = await fn();
    return { result, ms: performance.now() - started };
  } finally {
    release();
  }
}

/**
 * Takes the only connection at a given statement of the idempotency plugin (api/plugins/idempotency.ts):
 * 'after' it has given its connection back (the key's claim: the handler then finds the pool
 * exhausted), or 'before' it asks for one (storing the answer: that write finds it exhausted). The
 * pool serves waiters in order, so the test's wait, queued first, is served first.
 */
function holdAt(statement: string, moment: 'before' | 'after'): { held: Promise<() => void>; restore(): void } {
  const pool = getPool() as unknown as { query: (...args: unknown[]) => unknown; connect(): Promise<pg.PoolClient> };
  let give!: (release: () => void) => void;
  const held = new Promise<() => void>((resolve) => (give = resolve));
  const take = () => pool.connect().then((client) => give(() => client.release()));
  const restore = () => void delete (pool as { query?: unknown }).query;
  const original = pool.query;
  pool.query = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] !== 'string' || !args[0].includes(statement)) return original.apply(this, args);
    restore();
    if (moment === 'before') void take();
    const result = original.apply(this, args);
    if (moment === 'after') void (result as Promise<unknown>).then(take);
    return result;
  };
  return { held, restore };
}

const CLAIM = 'INSERT INTO idempotency_keys';
const STORE = "UPDATE idempotency_keys SET state = 'completed'";

function expectSaturated(r: { statusCode: number; headers: Record<string, unknown>; json(): any }) {
  expect(r.statusCode, JSON.stringify(r.json())).toBe(503);
  expect(r.headers['retry-after']).toBe('2');
  expect(r.json()).toEqual({
    data: null,
    errors: [{ status: '503', code: 'DATABASE_SATURATED', title: 'Service Unavailable', detail: expect.stringContaining('saturated') }],
    meta: { request_id: r.headers['x-request-id'] },
  });
}

const createKey = (key: string, name: string) =>
  t.app.inject({ method: 'POST', url: '/api/v2/api-keys', headers: { ...t.headers, 'idempotency-key': key }, payload: { name } });

describe('an exhausted pool is answered 503 DATABASE_SATURATED', () => {
  it('REST: a read that needs the database is refused with the envelope and Retry-After within a bound, and served once the connection is back', async () => {
    const warm = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers });
    expect(warm.statusCode).toBe(200);
    const { result: r, ms } = await whileHeld(() => t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers }));
    expectSaturated(r);
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    const after = await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers });
    expect(after.statusCode, after.body).toBe(200);
  });

  it('/api/ready: 503 naming the database saturated (not down), with the pool figures, within a bound; ready again after', async () => {
    const { result: r, ms } = await whileHeld(() => t.app.inject({ method: 'GET', url: '/api/ready' }));
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect(r.statusCode, r.body).toBe(503);
    const body = r.json();
    expect(body.meta.components).toEqual({ database: 'saturated', temporal: 'up' });
    expect(body.meta.database_pool).toEqual({ total: 1, idle: 0, waiting: expect.any(Number), max: 1 });
    expect(body.errors).toEqual([
      { status: '503', code: 'DATABASE_SATURATED', title: 'Service Unavailable', detail: expect.stringContaining('saturated'), meta: { component: 'database' } },
    ]);

    const ready = await t.app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json().data).toMatchObject({ status: 'ready', components: { database: 'up', temporal: 'up' }, database_pool: { total: 1, idle: 1, waiting: 0, max: 1 } });
  });

  it('/api/health does not need the database', async () => {
    const { result: r } = await whileHeld(() => t.app.inject({ method: 'GET', url: '/api/health' }));
    expect(r.statusCode, r.body).toBe(200);
  });

  it('GraphQL: the field is an error with the message and extensions.code DATABASE_SATURATED; the same query succeeds after', async () => {
    const query = '{ accounts { paginatorInfo { total } } }';
    await gqlOk(t, query); // the credential is cached: the resolver is what waits
    const { result: r, ms } = await whileHeld(() => gql(t, query));
    expect(ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect(r.errors).toHaveLength(1);
    expect(r.errors![0]).toMatchObject({ message: expect.stringContaining('saturated'), path: ['accounts'], extensions: { code: 'DATABASE_SATURATED', status: 503 } });
    expect((await gqlOk(t, query)).accounts.paginatorInfo.total).toBeGreaterThanOrEqual(0);
  });

  it('MCP: a tool that cannot get a connection is a tool error with the code (Prisma-wrapped or not), not INTERNAL_ERROR', async () => {
    const logged: unknown[] = [];
    const ctx: McpToolContext = { requestId: 'req-1', logError: (e) => logged.push(e), presentTransaction: () => ({}) };
    const viaPrisma = await whileHeld(() => guarded(ctx, async () => ({ content: [{ type: 'text', text: String(await getPrisma().user.count()) }] })));
    const direct = await guarded(ctx, async () => {
      throw new PoolExhaustedError(ACQUIRE_MS);
    });
    for (const r of [viaPrisma.result, direct]) {
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual({ error: { code: 'DATABASE_SATURATED', message: expect.stringContaining('saturated') } });
    }
    expect(logged).toEqual([]);
  });
});

describe('Idempotency-Key: a saturation refusal is not the key\'s answer', () => {
  it('refused before the key was claimed: the retry with the same key after release creates, and is then replayed', async () => {
    const key = newIdempotencyKey();
    await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers }); // warm the credential cache
    const { result: refused } = await whileHeld(() => createKey(key, 'saturated before claim'));
    expectSaturated(refused);

    const retry = await createKey(key, 'saturated before claim');
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await createKey(key, 'saturated before claim');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data.id).toBe(retry.json().data.id);
  });

  it('claimed, then refused in the handler: the key is released (in the background while the pool is full) and the retry creates', async () => {
    const key = newIdempotencyKey();
    await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers });
    const hold = holdAt(CLAIM, 'after');
    let release: (() => void) | undefined;
    try {
      const refused = await createKey(key, 'saturated after claim');
      release = await hold.held;
      expectSaturated(refused);
    } finally {
      hold.restore();
      release?.();
    }
    await keyWritesSettled();
    const retry = await createKey(key, 'saturated after claim');
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('an answer whose key cannot be stored for saturation is still the answer; the key is stored once a connection is free, and replays', async () => {
    const key = newIdempotencyKey();
    await t.app.inject({ method: 'GET', url: '/api/v2/accounts', headers: t.headers });
    const hold = holdAt(STORE, 'before');
    let release: (() => void) | undefined;
    let created;
    try {
      created = await createKey(key, 'stored late');
      release = await hold.held;
    } finally {
      hold.restore();
      release?.();
    }
    expect(created.statusCode, created.body).toBe(201);
    await keyWritesSettled();
    const replay = await createKey(key, 'stored late');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data.id).toBe(created.json().data.id);
  });

  it('GraphQL: a mutation refused for saturation after the claim is not replayed; the retry with the same key runs it', async () => {
    const key = newIdempotencyKey();
    const doc = 'mutation { createApiKey(input: { name: "gql saturated" }) { id name } }';
    const post = () => t.app.inject({ method: 'POST', url: '/api/graphql', headers: { ...t.headers, 'idempotency-key': key }, payload: { query: doc } });
    await gqlOk(t, '{ accounts { paginatorInfo { total } } }');
    const hold = holdAt(CLAIM, 'after');
    let release: (() => void) | undefined;
    try {
      const refused = await post();
      release = await hold.held;
      expect(refused.json().errors?.[0]?.extensions, refused.body).toMatchObject({ code: 'DATABASE_SATURATED', status: 503 });
    } finally {
      hold.restore();
      release?.();
    }
    await keyWritesSettled();
    const retry = await post();
    expect(retry.json().errors, retry.body).toBeUndefined();
    expect(retry.json().data.createApiKey.name).toBe('gql saturated');
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});
