/**
 * The embedded PostgreSQL of `npm start`, the suite, the bench and the chaos script
 * (domain/platform/embedded-postgres.ts): a real server on 127.0.0.1 with a password, whose data
 * survives a restart and whose leftover (a process killed without stopping it) is stopped by the
 * next start; and the pool in front of any PostgreSQL keeps or replaces connections as it should.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closePool, getPool, withTransaction } from '../../domain/db/pool';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../domain/platform/embedded-postgres';
import { useTestDatabase } from '../helpers/db';

const named = (value: number) => ({ name: 'embedded_test_named', text: 'SELECT $1::int AS x', values: [value] });

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(text);
  } finally {
    await c.end();
  }
}

describe('embedded PostgreSQL', () => {
  let dir: string;
  const started: EmbeddedPostgres[] = [];
  const start = async () => {
    const s = await startEmbeddedPostgres({ clusterDir: path.join(dir, 'cluster'), passwordFile: path.join(dir, 'password'), port: 0 });
    started.push(s);
    return s;
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'embedded-pg-test-'));
  });

  afterAll(async () => {
    for (const s of started) await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is PostgreSQL 17 on 127.0.0.1 only, with password authentication', async () => {
    const db = await start();
    expect(db.initialised).toBe(true);
    expect(db.version).toMatch(/^17\./);
    const { rows } = await query(db.url(), `SELECT current_setting('listen_addresses') AS listen, current_setting('password_encryption') AS enc`);
    expect(rows[0]).toEqual({ listen: '127.0.0.1', enc: 'scram-sha-256' });
    const wrong = new URL(db.url());
    wrong.password = 'not-the-password';
    await expect(query(wrong.toString(), 'SELECT 1')).rejects.toMatchObject({ code: '28P01' });
    await db.stop();
  });

  it('keeps its data across a restart, and a new database is created once', async () => {
    const first = await start();
    expect(first.initialised).toBe(false);
    const url = await first.ensureDatabase('banking');
    await query(url, 'CREATE TABLE kept (v text); INSERT INTO kept VALUES ($$still here$$)');
    await first.stop();
    const second = await start();
    expect(await second.ensureDatabase('banking')).toBe(url.replace(String(first.port), String(second.port)));
    expect((await query(second.url('banking'), 'SELECT v FROM kept')).rows).toEqual([{ v: 'still here' }]);
    await second.stop();
  });

  it('stops a server left running on its cluster by a process that never stopped it', async () => {
    const orphan = await start();
    // Not stopped: as if the process that started it had been killed.
    const next = await start();
    expect(next.pid).not.toBe(orphan.pid);
    expect(() => process.kill(orphan.pid, 0)).toThrow();
    expect((await query(next.url(), 'SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await next.stop();
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
