import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelinedConnection } from '../../domain/db/pipelined';
import { closePool, getPool } from '../../domain/db/pool';
import { useTestDatabase } from '../helpers/db';

/** Holds the JS thread: nothing the client would do on its own (read an answer, send a statement) happens meanwhile. */
function blockEventLoop(ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // busy on purpose
  }
}
const tick = () => new Promise((r) => setImmediate(r));

describe('a pipelined connection (domain/db/pipelined.ts)', () => {
  let admin: pg.Client;
  beforeAll(async () => {
    await useTestDatabase();
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await closePool();
  });

  it('runs statements in the order sent, on one backend, the next starting as the one before ends, not when the client reads its answer', async () => {
    const c = new PipelinedConnection(getPool());
    type Row = { pid: number; started: Date; ended: Date };
    const first = c.query<Row>({ text: 'SELECT pg_backend_pid() AS pid, clock_timestamp() AS started, pg_sleep(0.3)::text, clock_timestamp() AS ended' });
    await new Promise((r) => setTimeout(r, 50)); // the first is running
    const second = c.query<Row>({ text: 'SELECT pg_backend_pid() AS pid, clock_timestamp() AS started, clock_timestamp() AS ended' });
    await tick(); // sent
    // Without pipelining the second statement would go out only after this block, once the client
    // has read the first one's answer: 600 ms after the first started, not 300.
    blockEventLoop(600);
    const [a, b] = [(await first).rows[0], (await second).rows[0]];
    expect(b.pid).toBe(a.pid);
    expect(b.started.getTime()).toBeGreaterThanOrEqual(a.ended.getTime());
    expect(b.started.getTime() - a.ended.getTime()).toBeLessThan(200);
    // The connection went back to the pool, out of pipeline mode.
    await tick();
    const client = await getPool().connect();
    try {
      expect(client.pipeline).toBe(false);
      expect(getPool().waitingCount).toBe(0);
    } finally {
      client.release();
    }
  });

  it('a statement error fails that statement only', async () => {
    const c = new PipelinedConnection(getPool());
    const results = await Promise.allSettled([c.query({ text: 'SELECT 1 AS v' }), c.query({ text: 'SELECT 1 / 0 AS v' }), c.query({ text: 'SELECT 3 AS v' })]);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { rows: [{ v: 1 }] } });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(results[2]).toMatchObject({ status: 'fulfilled', value: { rows: [{ v: 3 }] } });
  });

  it('a lost connection fails the statements on it; the next statement takes another connection', async () => {
    const c = new PipelinedConnection(getPool());
    const slow = c.query<{ pid: number }>({ text: "SELECT pg_backend_pid() AS pid, pg_sleep(10)::text AS marker_lost_connection" });
    const after = c.query({ text: 'SELECT 2 AS v' });
    const outcomes = Promise.allSettled([slow, after]); // handled from the start: they reject while the test waits below
    let pid: number | undefined;
    for (let i = 0; i < 100 && pid === undefined; i++) {
      const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query LIKE '%marker_lost_connection%' AND pid <> pg_backend_pid()");
      pid = rows[0]?.pid;
      if (pid === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pid).toBeDefined();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    const settled = await outcomes;
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    const { rows } = await c.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    expect(rows[0].pid).not.toBe(pid);
  });
});
