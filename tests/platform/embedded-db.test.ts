/**
 * The connection layer survives errors (issue 13 item 9): on the embedded PGlite server (one
 * backend served over the wire protocol) a failed query or a dropped client must not leave
 * session state (named prepared statements, an open transaction, settings) to the next client,
 * and on a plain PostgreSQL pool a killed connection is replaced and named statements still work.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { buildApp } from '../../api/app';
import { migrate } from '../../domain/db/migrate';
import { closePool, getPool, withTransaction } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../domain/platform/embedded-db';
import { MemoryRateLimiter } from '../../domain/platform/rate-limiter';
import { closeTemporal } from '../../domain/temporal/client';
import { createTestUser, type TestUser } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';

const named = (value: number) => ({ name: 'embedded_test_named', text: 'SELECT $1::int AS x', values: [value] });

describe('embedded PGlite server', () => {
  let dir: string;
  let db: EmbeddedDatabase;
  let app: FastifyInstance;
  let user: TestUser;
  const saved = { url: process.env.DATABASE_URL, max: process.env.DB_POOL_MAX };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'embedded-db-test-'));
    db = await startEmbeddedDatabase(dir, 0);
    await migrate(db.url);
    await closePrisma();
    await closePool();
    process.env.DATABASE_URL = db.url;
    process.env.DB_POOL_MAX = '1';
    process.env.TEMPORAL_ADDRESS = inject('temporalAddress');
    process.env.JWT_SECRET ??= 'test-secret-that-is-long-enough-for-hs256-signing';
    process.env.RATE_LIMIT_PER_MINUTE = '100000';
    process.env.RATE_LIMIT_PER_HOUR = '1000000';
    process.env.LOG_LEVEL = 'silent';
    app = await buildApp({ logger: false, rateLimiter: new MemoryRateLimiter() });
    await app.ready();
    user = await createTestUser();
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await closeTemporal();
    await closePrisma();
    await closePool();
    await db?.stop();
    rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of [['DATABASE_URL', saved.url], ['DB_POOL_MAX', saved.max]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  async function account(amount?: string): Promise<string> {
    const r = await app.inject({ method: 'POST', url: '/api/v2/accounts', headers: user.headers, payload: { name: 'acct' } });
    expect(r.statusCode).toBe(201);
    const id = r.json().data.uuid as string;
    if (amount) {
      const d = await app.inject({ method: 'POST', url: `/api/v2/accounts/${id}/deposit`, headers: user.headers, payload: { amount, asset_code: 'USD' } });
      expect(d.statusCode).toBe(201);
    }
    return id;
  }

  it('transfer 201, a page beyond range 4xx, transfer 201 again (the reproduction of issue 13 item 9)', async () => {
    const from = await account('100.00');
    const to = await account();
    const transfer = () =>
      app.inject({
        method: 'POST',
        url: '/api/v2/transfers',
        headers: user.headers,
        payload: { from_account: from, to_account: to, amount: '1.00', asset_code: 'USD', workflow_enabled: false },
      });
    expect((await transfer()).statusCode).toBe(201);
    const bad = await app.inject({ method: 'GET', url: '/api/v1/payment-rails/payments?page=1152921504606846977', headers: user.headers });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.statusCode).toBeLessThan(500);
    for (let i = 0; i < 3; i++) {
      const r = await transfer();
      expect(r.statusCode, r.body).toBe(201);
    }
  });

  it('database errors on the pool (null byte, overflow, division by zero) leave named statements working', async () => {
    const pool = getPool();
    expect((await pool.query(named(1))).rows).toEqual([{ x: 1 }]);
    const failures: Array<[pg.QueryConfig | string, string]> = [
      [{ text: 'SELECT $1::text', values: ['a\u0000b'] }, '22021'],
      [{ text: 'SELECT 1 OFFSET $1', values: ['23058430092136939500'] }, '22003'],
      ['SELECT 1/0', '22012'],
      [{ name: 'embedded_test_failing', text: 'SELECT 1/$1::int', values: [0] }, '22012'],
    ];
    for (const [query, code] of failures) {
      await expect(pool.query(query as pg.QueryConfig)).rejects.toMatchObject({ code });
      expect((await pool.query(named(2))).rows).toEqual([{ x: 2 }]);
    }
  });

  it('a client dropped mid-transaction leaves nothing to the next one: no statements, no transaction, no settings', async () => {
    await closePool(); // this test drives its own clients; the server serves one at a time
    const first = new pg.Client({ connectionString: db.url });
    first.on('error', () => undefined);
    await first.connect();
    await first.query(`SET application_name = 'left-behind'`);
    await first.query('CREATE TABLE IF NOT EXISTS embedded_test_rows (v int)');
    await first.query(named(1));
    await first.query('BEGIN');
    await first.query('INSERT INTO embedded_test_rows VALUES (42)');
    // Parse without Sync: a half-sent extended query, then the socket dies.
    (first as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();

    const second = new pg.Client({ connectionString: db.url });
    await second.connect();
    try {
      expect((await second.query('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows[0].n).toBe(0);
      expect((await second.query(named(3))).rows).toEqual([{ x: 3 }]);
      expect((await second.query(`SELECT current_setting('application_name') AS a`)).rows[0].a).not.toBe('left-behind');
      expect((await second.query('SELECT count(*)::int AS n FROM embedded_test_rows')).rows[0].n).toBe(0);
      // Not inside the dropped client's transaction: BEGIN ... ROLLBACK here does not warn and works.
      await second.query('BEGIN');
      await second.query('INSERT INTO embedded_test_rows VALUES (1)');
      await second.query('COMMIT');
      expect((await second.query('SELECT count(*)::int AS n FROM embedded_test_rows')).rows[0].n).toBe(1);
    } finally {
      await second.end();
    }
  });

  it('a client that connects while another is connected waits for it instead of being refused', async () => {
    const first = new pg.Client({ connectionString: db.url });
    await first.connect();
    await first.query(named(1));
    const second = new pg.Client({ connectionString: db.url });
    const connecting = second.connect();
    await new Promise((r) => setTimeout(r, 200));
    await first.end();
    await connecting;
    try {
      expect((await second.query(named(5))).rows).toEqual([{ x: 5 }]);
    } finally {
      await second.end();
    }
  });
});

describe('plain PostgreSQL pool', () => {
  let admin: pg.Client;

  beforeAll(async () => {
    await useTestDatabase();
    admin = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
    await admin.connect();
  });

  afterAll(async () => {
    await closePool();
    await admin?.end();
  });

  const pid = async () => Number((await getPool().query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const terminate = (p: number) => admin.query('SELECT pg_terminate_backend($1)', [p]);

  it('keeps the connection after a statement the server refused', async () => {
    const before = await pid();
    await expect(getPool().query({ text: 'SELECT $1::text', values: ['a\u0000b'] })).rejects.toMatchObject({ code: '22021' });
    await expect(getPool().query('SELECT 1/0')).rejects.toMatchObject({ code: '22012' });
    expect(await pid()).toBe(before);
    expect((await getPool().query(named(1))).rows).toEqual([{ x: 1 }]);
  });

  it('replaces an idle connection killed by pg_terminate_backend; named statements still work', async () => {
    expect((await getPool().query(named(1))).rows).toEqual([{ x: 1 }]);
    const killed = await pid();
    const lost = new Promise((r) => getPool().once('error', r));
    await terminate(killed);
    await lost;
    expect((await getPool().query(named(2))).rows).toEqual([{ x: 2 }]);
    expect(await pid()).not.toBe(killed);
  });

  it('a connection killed while a transaction holds it idle fails that transaction, not the process', async () => {
    const uncaught: unknown[] = [];
    const record = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', record);
    try {
      const outcome = await withTransaction(async (c) => {
        const p = Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
        await terminate(p);
        // Idle in transaction when it dies: the client hears it as an 'error' event before any query.
        await new Promise((r) => setTimeout(r, 300));
        await c.query('SELECT 1');
      }).then(
        () => 'committed',
        (err: unknown) => err,
      );
      expect(outcome).not.toBe('committed');
      expect(uncaught).toEqual([]);
      expect((await getPool().query(named(4))).rows).toEqual([{ x: 4 }]);
    } finally {
      process.off('uncaughtException', record);
    }
  });

  it('replaces a connection killed in the middle of a query', async () => {
    const busy = await pid();
    // Settled into a value at once: the rejection may come before the assertion is reached.
    const running = getPool().query('SELECT pg_sleep(5)').then(
      () => 'completed',
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 200));
    await terminate(busy);
    expect(await running).toMatchObject({ code: '57P01' });
    expect((await getPool().query(named(3))).rows).toEqual([{ x: 3 }]);
    expect(await pid()).not.toBe(busy);
  });
});
