import { createHmac } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { dispatchOnce } from '../../domain/events/dispatcher';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { startReceiver, type Receiver } from './receiver';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

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
  await rx.close();
  await w.stop();
  await t.close();
});
beforeEach(() => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  rx.respond = () => 200;
});

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, headers = t.headers) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

const SPEC_EVENTS = [
  'account.created', 'account.updated', 'account.balance_updated', 'account.frozen', 'account.unfrozen', 'account.closed',
  'transfer.created', 'transfer.pending', 'transfer.completed', 'transfer.failed', 'transfer.reversed', 'transfer.expired',
  'transaction.created', 'transaction.completed',
  'workflow.started', 'workflow.step_completed', 'workflow.completed', 'workflow.failed', 'workflow.timeout', 'workflow.compensation_executed',
  'system.maintenance_start', 'system.maintenance_end', 'system.rate_limit_warning', 'system.api_key_expiring', 'system.security_alert', 'system.status_change',
  'bridge.initiated', 'bridge.completed', 'bridge.failed', 'swap.completed',
  'position.opened', 'position.closed', 'position.liquidation_warning', 'yield.harvested',
  'compliance.report.generated', 'compliance.violation.detected', 'travel_rule.check.completed',
  'payment_intent.created', 'payment_intent.completed', 'payment_intent.expired',
  'partner.onboarded', 'sdk.generated', 'widget.deployed',
];

/** Drains the outbox once, as the worker's dispatcher loop does, and returns the deliveries created. */
async function dispatch() {
  let total = 0;
  for (;;) {
    const r = await dispatchOnce();
    total += r.deliveries;
    if (r.events === 0) return total;
  }
}

async function openAccount(headers: Record<string, string>, deposit?: string) {
  const r = await call('POST', '/api/v2/accounts', { name: 'hooked' }, headers);
  const id = r.json().data.uuid as string;
  if (deposit) expect((await call('POST', `/api/v2/accounts/${id}/deposit`, { amount: deposit, asset_code: 'USD' }, headers)).statusCode).toBe(201);
  return id;
}

describe('event catalog', () => {
  it('lists every event of the spec with group, description and data schema; needs credentials', async () => {
    const r = await call('GET', '/api/v2/webhooks/events');
    expect(r.statusCode).toBe(200);
    const data = r.json().data as Array<{ type: string; group: string; produced: boolean; data_schema: object }>;
    // Every event the spec names, plus the areas' own events beyond the spec's list (payment rails,
    // Interledger), which are all produced: nothing is listed that the platform does not emit.
    const types = data.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(SPEC_EVENTS));
    const beyond = data.filter((e) => !SPEC_EVENTS.includes(e.type));
    expect(beyond.length).toBeGreaterThan(0);
    for (const e of beyond) expect(e, e.type).toMatchObject({ produced: true });
    expect(beyond.every((e) => /^(payment_rail|interledger|basket|governance|open_banking)\./.test(e.type))).toBe(true);
    expect(new Set(types).size).toBe(types.length);
    expect(data.find((e) => e.type === 'transfer.completed')).toMatchObject({ group: 'Transfer', produced: true });
    expect(data.find((e) => e.type === 'bridge.initiated')).toMatchObject({ group: 'Cross-chain', produced: true });
    expect(data.find((e) => e.type === 'partner.onboarded')).toMatchObject({ group: 'Partner', produced: true });
    expect(data.find((e) => e.type === 'transfer.expired')).toMatchObject({ group: 'Transfer', produced: true });
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/webhooks/events' })).statusCode).toBe(401);
  });

  it("describes the real payloads: every event the platform writes validates against its type's schema", async () => {
    const other = await createTestUser();
    const a = await openAccount(t.headers, '500.00');
    const b = await openAccount(other.headers);
    expect((await call('POST', '/api/v2/transfers', { from_account: a, to_account: b, amount: '20.00', asset_code: 'USD', workflow_enabled: false })).statusCode).toBe(201);
    const wf = await call('POST', '/api/v2/transfers', { from_account: a, to_account: b, amount: '1000.00', asset_code: 'USD' });
    expect(wf.statusCode).toBe(201);
    const deadline = Date.now() + 15_000;
    while ((await call('GET', `/api/v2/transfers/${wf.json().data.uuid}`)).json().data.status === 'pending' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const ok = await call('POST', '/api/v2/transfers', { from_account: a, to_account: b, amount: '100.00', asset_code: 'USD' });
    while ((await call('GET', `/api/v2/transfers/${ok.json().data.uuid}`)).json().data.status === 'pending' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const c = await openAccount(t.headers);
    const admin = await createTestUser({ admin: true });
    for (const action of ['freeze', 'unfreeze', 'close']) {
      expect((await call('POST', `/api/v2/accounts/${c}/${action}`, { reason: 'check' }, admin.headers)).statusCode).toBe(200);
    }

    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validators = new Map(EVENT_CATALOG.map((e) => [e.type, ajv.compile(e.data_schema)]));
    const { rows } = await getPool().query<{ type: string; data: unknown }>('SELECT type, data FROM platform_events');
    const seen = new Set<string>();
    const bad: string[] = [];
    for (const row of rows) {
      const v = validators.get(row.type);
      if (!v) {
        bad.push(`${row.type}: not in the catalog`);
        continue;
      }
      seen.add(row.type);
      if (!EVENT_CATALOG.find((e) => e.type === row.type)!.produced) bad.push(`${row.type}: produced but marked produced: false`);
      if (!v(row.data)) bad.push(`${row.type}: ${ajv.errorsText(v.errors)}`);
    }
    expect(bad).toEqual([]);
    for (const type of ['account.created', 'account.frozen', 'account.unfrozen', 'account.closed', 'account.balance_updated', 'transfer.failed', 'workflow.failed', 'transaction.created', 'transaction.completed',
      'transfer.created', 'transfer.completed', 'workflow.started', 'workflow.step_completed', 'workflow.completed']) {
      expect(seen).toContain(type);
    }
  });
});

describe('webhook endpoints', () => {
  it('registers with a generated secret shown once; lists, reads, updates, rotates and deletes', async () => {
    const r = await call('POST', '/api/v2/webhooks', { url: rx.url, events: ['transfer.completed', 'account.created', 'account.created'], description: 'ops' });
    expect(r.statusCode).toBe(201);
    const hook = r.json().data;
    expect(hook).toMatchObject({ url: rx.url, events: ['account.created', 'transfer.completed'], description: 'ops', active: true, status: 'active', environment: 'sandbox' });
    expect(hook.id).toMatch(/^webhook_[0-9a-f]{32}$/);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const got = (await call('GET', `/api/v2/webhooks/${hook.id}`)).json().data;
    expect(got.secret).toBeUndefined();
    const list = (await call('GET', '/api/v2/webhooks?per_page=1')).json();
    expect(list.meta).toMatchObject({ per_page: 1, current_page: 1 });
    expect(list.data[0].secret).toBeUndefined();

    const given = await call('POST', '/api/v2/webhooks', { url: rx.url, events: ['*'], secret: 'my-own-secret-of-enough-length', active: false });
    expect(given.json().data).toMatchObject({ secret: 'my-own-secret-of-enough-length', active: false, status: 'inactive', events: ['*'] });

    const put = await call('PUT', `/api/v2/webhooks/${hook.id}`, { events: ['*'], description: null, active: false });
    expect(put.statusCode).toBe(200);
    expect(put.json().data).toMatchObject({ events: ['*'], description: null, active: false });
    expect((await call('PUT', `/api/v2/webhooks/${hook.id}`, {})).statusCode).toBe(422);

    const rot = await call('POST', `/api/v2/webhooks/${hook.id}/rotate-secret`);
    expect(rot.statusCode).toBe(201);
    expect(rot.json().data.secret).toMatch(/^whsec_/);
    expect(rot.json().data.secret).not.toBe(hook.secret);
    expect(rot.json().data.secret_rotated_at).not.toBeNull();

    expect((await call('DELETE', `/api/v2/webhooks/${hook.id}`)).statusCode).toBe(200);
    expect((await call('GET', `/api/v2/webhooks/${hook.id}`)).statusCode).toBe(404);
    await call('DELETE', `/api/v2/webhooks/${given.json().data.id}`);
  });

  it('refuses unknown events, a mixed wildcard, bad secrets and malformed bodies (422), writing nothing', async () => {
    const before = (await call('GET', '/api/v2/webhooks')).json().meta.total;
    const cases: Array<[unknown, string]> = [
      [{ url: rx.url, events: ['account.created', 'account.exploded'] }, 'UNKNOWN_EVENT_TYPE'],
      [{ url: rx.url, events: ['*', 'account.created'] }, 'INVALID_EVENTS'],
      [{ url: rx.url, events: [] }, 'VALIDATION_ERROR'],
      [{ url: rx.url, events: ['*'], secret: 'short' }, 'VALIDATION_ERROR'],
      [{ url: rx.url, events: ['*'], secret: 'has whitespace inside it' }, 'INVALID_SECRET'],
      [{ url: rx.url, events: ['*'], extra: 1 }, 'VALIDATION_ERROR'],
      [{ url: 'not a url', events: ['*'] }, 'INVALID_WEBHOOK_URL'],
      [{ events: ['*'] }, 'VALIDATION_ERROR'],
      [{ url: rx.url, events: ['*'], active: 'yes' }, 'VALIDATION_ERROR'],
    ];
    for (const [body, code] of cases) {
      const r = await call('POST', '/api/v2/webhooks', body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(r.json().errors[0].code, JSON.stringify(body)).toBe(code);
    }
    expect((await call('GET', '/api/v2/webhooks')).json().meta.total).toBe(before);
  });

  it('refuses http and private, loopback and link-local targets when the development allowances are off (SSRF)', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'false';
    process.env.WEBHOOK_ALLOW_HTTP = 'false';
    const urls = [
      'http://hooks.example.com/x',
      'https://10.1.2.3/hook',
      'https://127.0.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://[::ffff:192.168.1.1]/hook',
      'https://user:pw@8.8.8.8/hook',
      'https://0.0.0.0/hook',
    ];
    for (const url of urls) {
      const r = await call('POST', '/api/v2/webhooks', { url, events: ['*'] });
      expect(r.statusCode, url).toBe(422);
      expect(r.json().errors[0]).toMatchObject({ code: 'INVALID_WEBHOOK_URL', source: { pointer: '/url' } });
    }
    // Also on update.
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
    process.env.WEBHOOK_ALLOW_HTTP = 'true';
    const id = (await call('POST', '/api/v2/webhooks', { url: rx.url, events: ['*'], active: false })).json().data.id;
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'false';
    expect((await call('PUT', `/api/v2/webhooks/${id}`, { url: 'https://192.168.0.10/x' })).statusCode).toBe(422);
    await call('DELETE', `/api/v2/webhooks/${id}`);
  });

  it("another user's webhook and its deliveries are 404; the other environment does not see it", async () => {
    const id = (await call('POST', '/api/v2/webhooks', { url: rx.url, events: ['*'], active: false })).json().data.id;
    const stranger = await createTestUser();
    for (const [m, u, body] of [
      ['GET', `/api/v2/webhooks/${id}`],
      ['PUT', `/api/v2/webhooks/${id}`, { active: true }],
      ['DELETE', `/api/v2/webhooks/${id}`],
      ['POST', `/api/v2/webhooks/${id}/rotate-secret`],
      ['GET', `/api/v2/webhooks/${id}/deliveries`],
      ['POST', `/api/v2/webhooks/${id}/deliveries/whdel_x/replay`],
    ] as Array<['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?]>) {
      expect((await call(m, u, body, stranger.headers)).statusCode, `${m} ${u}`).toBe(404);
    }
    expect((await call('GET', '/api/v2/webhooks', undefined, stranger.headers)).json().data).toEqual([]);
    const prod = await createTestUser({ environment: 'production' });
    expect((await call('GET', `/api/v2/webhooks/${id}`, undefined, prod.headers)).statusCode).toBe(404);
    expect((await call('GET', `/api/v2/webhooks/${id}`)).statusCode).toBe(200);
    await call('DELETE', `/api/v2/webhooks/${id}`);
  });
});

describe('deliveries', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await createTestUser();
    await dispatch(); // earlier tests' events
  });

  it('fans events out to matching active endpoints of the same user and environment, signed and verifiable', async () => {
    const all = (await call('POST', '/api/v2/webhooks', { url: rx.url, events: ['*'] }, owner.headers)).json().data;
    const onlyTransfers = (await call('POST', '/api/v2/webhooks', { url: `${rx.url}/t`, events: ['transfer.completed'] }, owner.headers)).json().data;
    const inactive = (await call('POST', '/api/v2/webhooks', { url: `${rx.url}/off`, events: ['*'], active: false }, owner.headers)).json().data;
    const prod = await createTestUser({ environment: 'production' });
    await call('POST', '/api/v2/webhooks', { url: `${rx.url}/prod`, events: ['*'] }, prod.headers);
    const stranger = await createTestUser();
    await call('POST', '/api/v2/webhooks', { url: `${rx.url}/stranger`, events: ['*'] }, stranger.headers);
    rx.received.length = 0;

    await openAccount(owner.headers, '25.00');
    const created = await dispatch();
    const { rows: events } = await getPool().query<{ id: string; type: string; data: unknown; occurred_at: Date; published_at: Date | null }>(
      `SELECT id, type, data, occurred_at, published_at FROM platform_events WHERE user_id = $1 ORDER BY occurred_at, id`,
      [owner.userId],
    );
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['account.created', 'transaction.created', 'transaction.completed', 'account.balance_updated']));
    expect(events.every((e) => e.published_at !== null)).toBe(true);
    expect(created).toBe(events.length); // only the '*' endpoint matches; no transfer happened
    const got = await rx.waitFor(events.length);
    expect(got.every((g) => g.headers['x-webhook-delivery'] && !String(g.headers['x-webhook-id']).includes('stranger'))).toBe(true);

    for (const e of events) {
      const req = got.find((g) => g.headers['x-webhook-id'] === e.id)!;
      expect(req, e.type).toBeDefined();
      // An independent implementation of the documented scheme.
      const expected = createHmac('sha256', all.secret).update(req.body).digest('hex');
      expect(req.headers['x-webhook-signature']).toBe(expected);
      const ts = String(req.headers['x-webhook-timestamp']);
      expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(30);
      expect(req.headers['x-webhook-signature-v2']).toBe(`t=${ts},v1=${createHmac('sha256', all.secret).update(`${ts}.${req.body}`).digest('hex')}`);
      expect(req.headers['x-webhook-event']).toBe(e.type);
      expect(req.headers['content-type']).toBe('application/json');
      expect(JSON.parse(req.body)).toEqual({ id: e.id, event_type: e.type, created_at: e.occurred_at.toISOString(), data: e.data });
    }
    const forgery = createHmac('sha256', 'whsec_wrong').update(got[0].body).digest('hex');
    expect(got[0].headers['x-webhook-signature']).not.toBe(forgery);

    // The deliveries endpoint shows each attempt.
    let list: { data: Array<Record<string, any>>; meta: { total: number } };
    const deadline = Date.now() + 10_000;
    do {
      list = (await call('GET', `/api/v2/webhooks/${all.id}/deliveries?per_page=100`, undefined, owner.headers)).json();
    } while (list.data.some((d) => d.status !== 'succeeded') && Date.now() < deadline && (await new Promise((r) => setTimeout(r, 50))) === undefined);
    expect(list.meta.total).toBe(events.length);
    for (const d of list.data) {
      expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1, last_status_code: 200, workflow_id: `webhook-delivery-${d.id}` });
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, succeeded: true, error: null, next_retry_at: null });
      expect(d.attempts[0].duration_ms).toBeGreaterThanOrEqual(0);
    }
    expect((await call('GET', `/api/v2/webhooks/${onlyTransfers.id}/deliveries`, undefined, owner.headers)).json().meta.total).toBe(0);
    expect((await call('GET', `/api/v2/webhooks/${inactive.id}/deliveries`, undefined, owner.headers)).json().meta.total).toBe(0);

    // A second dispatch never delivers the same events again.
    expect(await dispatch()).toBe(0);

    // Replay: the same event (same id and body) once more, as a new delivery.
    const first = list.data.find((d) => d.event_type === 'account.created')!;
    const count = rx.received.length;
    const rep = await call('POST', `/api/v2/webhooks/${all.id}/deliveries/${first.id}/replay`, undefined, owner.headers);
    expect(rep.statusCode).toBe(202);
    expect(rep.json().data).toMatchObject({ replay_of: first.id, event_id: first.event_id, status: 'pending' });
    const again = (await rx.waitFor(count + 1))[count];
    expect(again.headers['x-webhook-id']).toBe(first.event_id);
    expect(again.body).toBe(JSON.stringify(first.request.body));
    expect((await call('POST', `/api/v2/webhooks/${all.id}/deliveries/whdel_nope/replay`, undefined, owner.headers)).statusCode).toBe(404);
    await call('PUT', `/api/v2/webhooks/${all.id}`, { active: false }, owner.headers);
    expect((await call('POST', `/api/v2/webhooks/${all.id}/deliveries/${first.id}/replay`, undefined, owner.headers)).json().errors[0].code).toBe('WEBHOOK_INACTIVE');
  });

  it('checks the address again at delivery time: a hook registered while allowed is refused once the allowance is off', async () => {
    const viaName = (await call('POST', '/api/v2/webhooks', { url: rx.url.replace('127.0.0.1', 'localhost'), events: ['account.created'] }, owner.headers)).json().data;
    const viaIp = (await call('POST', '/api/v2/webhooks', { url: rx.url, events: ['account.created'] }, owner.headers)).json().data;
    const n = rx.received.length;
    process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'false'; // read by the sender in this process's worker
    await openAccount(owner.headers);
    await dispatch();
    for (const hook of [viaName, viaIp]) {
      let d: Record<string, any> | undefined;
      const deadline = Date.now() + 20_000;
      // The attempt is recorded before the delivery's status moves on: wait for both.
      while ((!d?.attempts?.[0]?.error || d.status === 'pending') && Date.now() < deadline) {
        d = (await call('GET', `/api/v2/webhooks/${hook.id}/deliveries`, undefined, owner.headers)).json().data[0];
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(d, JSON.stringify(d)).toMatchObject({ status: 'retrying', last_status_code: null });
      expect(d!.attempts[0].error).toMatch(/refused/);
      expect(d!.attempts[0].next_retry_at).not.toBeNull();
      await call('DELETE', `/api/v2/webhooks/${hook.id}`, undefined, owner.headers);
    }
    expect(rx.received.length).toBe(n);
  });
});

describe('tenant isolation (issue 41)', () => {
  it("another customer of the tenant and a customer of another tenant get 404 on A's webhook and its deliveries, receive none of A's events, and change nothing", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    await dispatch(); // earlier tests' events
    const hook = (await call('POST', '/api/v2/webhooks', { url: `${rx.url}/a`, events: ['*'] }, a.headers)).json().data;
    const theirs: string[] = [];
    for (const u of [b, c]) theirs.push((await call('POST', '/api/v2/webhooks', { url: `${rx.url}/other`, events: ['*'] }, u.headers)).json().data.id);
    await openAccount(a.headers, '5.00');
    expect(await dispatch()).toBeGreaterThan(0);
    const { rows } = await getPool().query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at LIMIT 1', [hook.id]);
    const delivery = rows[0].id;
    // A's events went to A's endpoint only.
    expect((await getPool().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1::text[])', [theirs])).rows[0].n).toBe(0);
    const snapshot = async () => ({
      hook: (await getPool().query('SELECT url, events, active, secret_sealed, updated_at FROM webhooks WHERE id = $1', [hook.id])).rows,
      deliveries: (await getPool().query('SELECT id, status FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id', [hook.id])).rows.length,
    });
    const before = await snapshot();
    const wrong: string[] = [];
    for (const [who, headers, own] of [['B (same tenant)', b.headers, theirs[0]], ['C (other tenant)', c.headers, theirs[1]]] as const) {
      const probes: Probe[] = [
        { method: 'GET', url: `/api/v2/webhooks/${hook.id}` },
        { method: 'PUT', url: `/api/v2/webhooks/${hook.id}`, payload: { url: `${rx.url}/stolen`, active: true } },
        { method: 'DELETE', url: `/api/v2/webhooks/${hook.id}` },
        { method: 'POST', url: `/api/v2/webhooks/${hook.id}/rotate-secret`, payload: {} },
        { method: 'GET', url: `/api/v2/webhooks/${hook.id}/deliveries` },
        { method: 'POST', url: `/api/v2/webhooks/${hook.id}/deliveries/${delivery}/replay` },
        // A's delivery replayed to their own endpoint.
        { method: 'POST', url: `/api/v2/webhooks/${own}/deliveries/${delivery}/replay` },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, headers]], { status: 404, code: 'NOT_FOUND' }, [hook.id, delivery, a.userId])));
      const list = await call('GET', '/api/v2/webhooks', undefined, headers);
      if (list.body.includes(hook.id)) wrong.push(`${who} list shows A's webhook`);
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    for (const id of theirs) expect((await getPool().query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1', [id])).rows[0].n).toBe(0);
  });
});
