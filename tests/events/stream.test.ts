import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsMsg } from '@nats-io/jetstream';
import { getPool } from '../../domain/db/pool';
import { consumeOnce, ensureConsumer, startConsumer, type ConsumerSpec, type StreamEvent } from '../../domain/events/consumer';
import { dispatchOnce } from '../../domain/events/dispatcher';
import { writeOutboxEvents } from '../../domain/events/outbox';
import { dashboardProjector } from '../../domain/events/projector';
import { messageBody, pruneOutbox, relayAll, relayOnce, type OutboxRow } from '../../domain/events/relay';
import { eventStream, subjectFor } from '../../domain/events/stream';
import { collectBrokerStatus } from '../../domain/observability/broker';
import { createTestApp, type TestApp } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';

let t: TestApp;
beforeAll(async () => {
  // Redeliveries after 2 s instead of 30 (set before the consumers are created).
  process.env.EVENTS_ACK_WAIT_SECONDS = '2';
  t = await createTestApp();
});
afterAll(async () => {
  delete process.env.EVENTS_ACK_WAIT_SECONDS;
  await t.close();
});

const write = (n: number, aggregateId = `agg_${Math.random().toString(36).slice(2)}`) =>
  writeOutboxEvents(
    getPool(),
    Array.from({ length: n }, (_, i) => ({ type: 'account.updated', environment: 'sandbox' as const, userId: null, aggregateType: 'account', aggregateId, data: { i } })),
  );

/** A consumer that records what it processed in a table of its own, in its transaction. */
function recorder(name: string, opts: { failFirst?: boolean; failAfterCommit?: boolean } = {}): ConsumerSpec<string[]> & { calls: number; redelivered: number } {
  let failed = false;
  let afterFailed = false;
  const spec = {
    name,
    description: 'test consumer',
    calls: 0,
    redelivered: 0,
    async handle(c: Parameters<ConsumerSpec<string[]>['handle']>[0], events: StreamEvent[]) {
      spec.calls++;
      spec.redelivered += events.filter((e) => e.redelivered).length;
      if (opts.failFirst && !failed) {
        failed = true;
        throw new Error('consumer crashed mid-batch');
      }
      await c.query(`CREATE TABLE IF NOT EXISTS test_processed (consumer text, event_id text)`);
      await c.query(`INSERT INTO test_processed SELECT $1, unnest($2::text[])`, [name, events.map((e) => e.id)]);
      return events.map((e) => e.id);
    },
    async afterCommit() {
      if (opts.failAfterCommit && !afterFailed) {
        afterFailed = true;
        throw new Error('died after the commit, before the acks');
      }
    },
  };
  return spec;
}

const processed = async (consumer: string) =>
  (await getPool().query<{ event_id: string; n: string }>(`SELECT event_id, count(*) AS n FROM test_processed WHERE consumer = $1 GROUP BY event_id`, [consumer])).rows;

describe('the outbox relay', () => {
  it('publishes committed events in outbox order, marks them with their stream sequence, and never twice', async () => {
    await relayAll();
    const ids = await write(5);
    const r = await relayOnce();
    expect(r).toMatchObject({ published: 5, standby: false });
    const { rows } = await getPool().query<{ id: string; seq: string; stream_seq: string }>(
      `SELECT id, seq, stream_seq FROM outbox_events WHERE id = ANY($1::text[]) ORDER BY seq`,
      [ids],
    );
    expect(rows.map((x) => x.id)).toEqual(ids);
    const seqs = rows.map((x) => Number(x.stream_seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(5);
    // The stream holds them in that order, on `<prefix>.<environment>.<type>`.
    const h = await eventStream();
    for (const [i, s] of seqs.entries()) {
      const m = (await h.jsm.streams.getMessage(h.settings.stream, { seq: s }))!;
      expect(m.subject).toBe(subjectFor(h.settings, 'sandbox', 'account.updated'));
      expect(m.json<{ id: string; data: { i: number } }>()).toMatchObject({ id: ids[i], data: { i } });
    }
    expect((await relayOnce()).published).toBe(0);
  });

  it('a relay that died after publishing and before its commit publishes again; the stream stores each event once', async () => {
    await relayAll();
    const [id] = await write(1);
    const h = await eventStream();
    const before = (await h.jsm.streams.info(h.settings.stream)).state.last_seq;
    // What the dead relay did: the publish, without the commit that marks the row.
    const { rows } = await getPool().query<OutboxRow>(`SELECT id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at, seq FROM outbox_events WHERE id = $1`, [id]);
    const first = await h.js.publish(subjectFor(h.settings, 'sandbox', 'account.updated'), JSON.stringify(messageBody(rows[0])), { msgID: id });
    expect(first.duplicate).toBe(false);
    expect((await relayOnce()).published).toBe(1);
    const info = await h.jsm.streams.info(h.settings.stream);
    expect(info.state.last_seq).toBe(before + 1);
    const { rows: marked } = await getPool().query(`SELECT stream_seq FROM outbox_events WHERE id = $1`, [id]);
    expect(Number(marked[0].stream_seq)).toBe(first.seq);
  });

  it('one relay at a time: a second one stands by while the first holds the lock', async () => {
    const c = await getPool().connect();
    try {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock(7240001)');
      await write(1);
      expect(await relayOnce()).toEqual({ published: 0, messages: 0, standby: true });
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
    expect((await relayOnce()).published).toBeGreaterThanOrEqual(1);
  });
});

describe('events of an immediate transfer', () => {
  it('reach the stream with their data as of the transfer, though its row stores the derived events by reference', async () => {
    const from = await openFundedAccount(t, t.headers, '100.00');
    const to = await openFundedAccount(t, t.headers, '5.00');
    await relayAll();
    const pay = (amount: string) =>
      t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: from, to_account: to, amount, asset_code: 'USD', workflow_enabled: false } });
    const first = (await pay('10.00')).json().data.uuid as string;
    // A later transfer moves the same accounts before the relay reads the first one's row.
    expect((await pay('1.00')).statusCode).toBe(201);
    const pool = getPool();
    const { rows: stored } = await pool.query<{ derived: Record<string, unknown> }>(`SELECT derived FROM outbox_events WHERE aggregate_id = $1`, [first]);
    // Stored compact: only what the batch alone knows (its entry, transfer.completed's id, the balances).
    expect(Object.keys(stored[0].derived).sort()).toEqual(['balances', 'completed', 'entry_id']);
    const read = () =>
      pool.query<{ id: string; type: string; aggregate_id: string; data: Record<string, unknown> }>(
        `SELECT id, type, aggregate_id, data FROM platform_events WHERE seq = (SELECT seq FROM outbox_events WHERE aggregate_id = $1) ORDER BY ord`,
        [first],
      );
    const { rows: events } = await read();
    // The customer lines (debit, credit, fee) each with two events, then each account's balance.
    expect(events.map((e) => e.type)).toEqual([
      'transfer.created',
      ...Array(3).fill(['transaction.created', 'transaction.completed']).flat(),
      'account.balance_updated',
      'account.balance_updated',
      'transfer.completed',
    ]);
    // Ids made at read time are the same on every read, and distinct.
    expect((await read()).rows.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const e of events) expect(e.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(events.at(-1)).toMatchObject({ type: 'transfer.completed', aggregate_id: first, data: events[0].data });
    const credit = events.find((e) => e.type === 'transaction.completed' && e.data.account_id === to)!;
    expect(credit.data).toMatchObject({ id: credit.aggregate_id, amount: '10.00', balance_after: '15.00', status: 'completed' });
    expect(events.find((e) => e.type === 'account.balance_updated' && e.aggregate_id === to)!.data).toMatchObject({ total_balance: '15.00', available_balance: '15.00' });

    await relayAll();
    const { rows: o } = await pool.query<{ stream_seq: string }>(`SELECT stream_seq FROM outbox_events WHERE aggregate_id = $1`, [first]);
    const h = await eventStream();
    for (const [i, e] of events.entries()) {
      const m = (await h.jsm.streams.getMessage(h.settings.stream, { seq: Number(o[0].stream_seq) + i }))!;
      expect(m.json()).toMatchObject({ id: e.id, type: e.type, aggregate_id: e.aggregate_id, data: e.data });
    }
  });
});

describe('durable consumers', () => {
  it('a consumer that crashes mid-batch gets the batch again and processes each event once', async () => {
    const spec = recorder(`crash-${Date.now()}`, { failFirst: true });
    const ids = await write(3);
    await relayAll();
    await expect(consumeOnce(spec)).rejects.toThrow('consumer crashed mid-batch');
    // Nak'ed: delivered again at once (after its 1 s delay).
    let r = await consumeOnce(spec, { expiresMs: 3000 });
    while (r.received === 0) r = await consumeOnce(spec, { expiresMs: 3000 });
    const rows = await processed(spec.name);
    expect(rows.filter((x) => ids.includes(x.event_id)).map((x) => Number(x.n))).toEqual([1, 1, 1]);
  });

  it('an unacknowledged message (its process killed) is redelivered after the ack wait; the redelivery is processed once', async () => {
    const spec = recorder(`killed-${Date.now()}`);
    const ids = await write(2);
    await relayAll();
    // A process pulls everything there is (the earlier tests' events too) and dies without acking.
    const { consumer } = await ensureConsumer(spec);
    const dropped: JsMsg[] = [];
    const info = await consumer.info();
    for await (const m of await consumer.fetch({ max_messages: info.num_pending, expires: 2000 })) dropped.push(m);
    expect(dropped.length).toBeGreaterThanOrEqual(2);
    expect((await consumer.info()).num_ack_pending).toBe(dropped.length);
    // After the ack wait (2 s here) another instance receives them, marked redelivered.
    const t0 = Date.now();
    const r = await consumeOnce(spec, { expiresMs: 5000 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(r.received).toBe(dropped.length);
    expect(spec.redelivered).toBe(dropped.length);
    const rows = await processed(spec.name);
    for (const id of ids) expect(rows.find((x) => x.event_id === id)?.n, id).toBe('1');
    expect((await consumer.info()).num_ack_pending).toBe(0);
  });

  it('a batch whose effects committed but whose acks were lost is delivered again and changes nothing twice', async () => {
    const spec = recorder(`lost-acks-${Date.now()}`, { failAfterCommit: true });
    const ids = await write(4);
    await relayAll();
    await expect(consumeOnce(spec)).rejects.toThrow('died after the commit');
    let r = await consumeOnce(spec, { expiresMs: 3000 });
    while (r.received === 0) r = await consumeOnce(spec, { expiresMs: 3000 });
    expect(r.duplicates).toBe(r.received);
    expect(r.processed).toBe(0);
    const rows = await processed(spec.name);
    expect(ids.map((id) => rows.find((x) => x.event_id === id)?.n)).toEqual(['1', '1', '1', '1']);
  });

  it('the same event at two stream positions (published again after the duplicate window) is processed once', async () => {
    const spec = recorder(`dupe-${Date.now()}`);
    const [id] = await write(1);
    await relayAll();
    const h = await eventStream();
    const { rows } = await getPool().query<OutboxRow>(`SELECT id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at, seq FROM outbox_events WHERE id = $1`, [id]);
    // A different message id: the stream stores it again, as it would once the window passed.
    await h.js.publish(subjectFor(h.settings, 'sandbox', 'account.updated'), JSON.stringify(messageBody(rows[0])), { msgID: `${id}-again` });
    let r = await consumeOnce(spec);
    while (r.received > 0) r = await consumeOnce(spec);
    expect((await processed(spec.name)).find((x) => x.event_id === id)?.n).toBe('1');
  });


  it('a live consumer whose batch takes longer than the ack wait keeps its messages (no redelivery storm)', async () => {
    const base = recorder(`slow-${Date.now()}`);
    let batches = 0;
    const slow: typeof base = {
      ...base,
      async handle(c, events) {
        batches++;
        // Longer than the 2 s ack wait of this file's consumers.
        if (batches === 1) await new Promise((r) => setTimeout(r, 4500));
        return base.handle(c, events);
      },
    };
    const { consumer } = await ensureConsumer(slow);
    await relayAll();
    const ids = await write(3);
    await relayAll();
    const running = startConsumer(slow);
    try {
      for (const end = Date.now() + 15_000; Date.now() < end; ) {
        const i = await consumer.info();
        if (i.num_pending === 0 && i.num_ack_pending === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      const i = await consumer.info();
      expect(i.num_pending + i.num_ack_pending).toBe(0);
      // Each message delivered once: the consumer's delivery count equals the stream positions it read.
      expect(i.delivered.consumer_seq).toBe(i.delivered.stream_seq);
      const rows = await processed(slow.name);
      expect(ids.map((id) => rows.find((x) => x.event_id === id)?.n)).toEqual(['1', '1', '1']);
    } finally {
      await running.stop();
    }
  });

  it('the webhook dispatcher makes one delivery per endpoint for an event it receives twice', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
    process.env.WEBHOOK_ALLOW_HTTP = 'true';
    const hook = await t.app.inject({ method: 'POST', url: '/api/v2/webhooks', headers: t.headers, payload: { url: 'http://127.0.0.1:9/hook', events: ['account.updated'] } });
    expect(hook.statusCode, hook.body).toBe(201);
    await dispatchOnce();
    const [id] = await writeOutboxEvents(getPool(), [
      { type: 'account.updated', environment: 'sandbox', userId: t.user.userId, aggregateType: 'account', aggregateId: 'acct_x', data: { account_id: 'acct_x' } },
    ]);
    await relayAll();
    const h = await eventStream();
    const { rows } = await getPool().query<OutboxRow>(`SELECT id, type, environment, user_id, aggregate_type, aggregate_id, data, occurred_at, seq FROM outbox_events WHERE id = $1`, [id]);
    await h.js.publish(subjectFor(h.settings, 'sandbox', 'account.updated'), JSON.stringify(messageBody(rows[0])), { msgID: `${id}-again` });
    const first = await dispatchOnce();
    expect(first.deliveries).toBe(1);
    const { rows: deliveries } = await getPool().query(`SELECT id FROM webhook_deliveries WHERE event_id = $1`, [id]);
    expect(deliveries).toHaveLength(1);
  });
});

describe('broker figures', () => {
  it('the dashboard projector\'s lag is what the broker reports: messages after its ack floor, and their age', async () => {
    await dispatchOnce();
    await write(3);
    await relayAll();
    await new Promise((r) => setTimeout(r, 1100));
    const lagging = await collectBrokerStatus();
    const p = lagging.consumers.find((c) => c.name === 'dashboard-projector')!;
    expect(p.lag_messages).toBe(3);
    expect(p.pending).toBe(3);
    expect(p.lag_seconds).toBeGreaterThanOrEqual(1);
    expect(lagging.stream!.messages).toBe(lagging.stream!.last_seq);
    expect(lagging.jetstream!.memory_bytes).toBeGreaterThan(0);
    await consumeOnce(dashboardProjector);
    const caught = (await collectBrokerStatus()).consumers.find((c) => c.name === 'dashboard-projector')!;
    expect(caught).toMatchObject({ lag_messages: 0, pending: 0, ack_pending: 0, lag_seconds: 0 });
  });
});

describe('outbox retention', () => {
  it('prunes published rows past the retention, never unpublished ones', async () => {
    await relayAll();
    const [old] = await write(1);
    await relayAll();
    const [unpublished] = await write(1);
    await getPool().query(`UPDATE outbox_events SET occurred_at = now() - interval '10 days', published_at = now() - interval '10 days' WHERE id = $1`, [old]);
    await getPool().query(`UPDATE outbox_events SET occurred_at = now() - interval '10 days' WHERE id = $1`, [unpublished]);
    const r = await pruneOutbox({ retentionHours: 24 * 7 });
    expect(r.outbox).toBeGreaterThanOrEqual(1);
    const { rows } = await getPool().query<{ id: string }>(`SELECT id FROM outbox_events WHERE id = ANY($1::text[])`, [[old, unpublished]]);
    expect(rows.map((x) => x.id)).toEqual([unpublished]);
  });
});
