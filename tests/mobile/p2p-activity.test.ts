import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { dispatchOnce } from '../../domain/events/dispatcher';
import { trialBalance } from '../../domain/ledger';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, waitForTransfer } from '../transfers/helpers';

let t: TestApp;
let w: TestWorker;
let bob: TestUser;
let bobAccount: string;

beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  bob = await createTestUser();
  bobAccount = await openFundedAccount(t, bob.headers, '1000.00');
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
});

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers = t.headers) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function p2p(body: Record<string, unknown>, headers = t.headers) {
  return call('POST', '/api/v2/mobile/transfers/p2p', body, headers);
}

/** Publishes the outbox (as the dispatcher loop does): notifications and pushes follow from the events. */
async function publish(): Promise<void> {
  while ((await dispatchOnce({ taskQueue: w.taskQueue })).events > 0);
}

describe('P2P transfers', () => {
  it('to a handle, a phone or an email: the recipient\'s account receives through the transfer workflow; receipts for both', async () => {
    expect((await call('PATCH', '/api/v2/mobile/profile', { handle: '@Bob_Builder', phone: '+1 (415) 555-0132' }, bob.headers)).json().data).toMatchObject({ handle: 'bob_builder', phone: '+14155550132' });
    const acct = await openFundedAccount(t, t.headers, '500.00');
    for (const to_user of ['@bob_builder', '+14155550132', bob.email.toUpperCase()]) {
      const r = await p2p({ to_user, amount: '10.00', currency: 'USD', note: 'lunch' });
      expect(r.statusCode, r.body).toBe(201);
      const sent = r.json().data;
      expect(sent).toMatchObject({ direction: 'sent', amount: '10.00', currency: 'USD', note: 'lunch', to: { user_id: bob.userId, account_id: null }, from: { account_id: acct } });
      const done = await waitForTransfer(t, t.headers, sent.id, settled);
      expect(done.status).toBe('completed');
      const theirs = (await call('GET', `/api/v2/mobile/transfers/p2p/${sent.id}`, undefined, bob.headers)).json().data;
      expect(theirs).toMatchObject({ direction: 'received', to: { account_id: bobAccount }, from: { account_id: null }, fee: null, receipt_id: `rcpt_${sent.id}` });
      const receipt = (await call('GET', `/api/v2/mobile/receipts/rcpt_${sent.id}`, undefined, bob.headers)).json().data;
      expect(receipt).toMatchObject({ kind: 'p2p_transfer', amount: '10.00', description: 'lunch', payee: { account_id: bobAccount }, payer: { account_id: null } });
    }
    // 0.1 % fee on each: 10.01 three times.
    expect(await balance(t, t.headers, acct)).toMatchObject({ total_balance: '469.97' });
    expect(await balance(t, bob.headers, bobAccount)).toMatchObject({ total_balance: '1030.00' });
  });

  it('refuses self, unknown people and bad identifiers; a stranger cannot read the transfer', async () => {
    await openFundedAccount(t, t.headers, '10.00');
    const cases: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ to_user: t.user.email, amount: '1.00', currency: 'USD' }, 422, 'P2P_TO_SELF', '/to_user'],
      [{ to_user: 'ghost@example.test', amount: '1.00', currency: 'USD' }, 404, 'RECIPIENT_NOT_FOUND'],
      [{ to_user: '@nobody_here', amount: '1.00', currency: 'USD' }, 404, 'RECIPIENT_NOT_FOUND'],
      [{ to_user: '+1 555', amount: '1.00', currency: 'USD' }, 422, 'INVALID_RECIPIENT', '/to_user'],
      [{ to_user: bob.email, amount: '1.001', currency: 'USD' }, 422, 'AMOUNT_PRECISION', '/amount'],
      [{ to_user: bob.email, amount: '1.00', currency: 'NOPE' }, 422, 'UNKNOWN_ASSET', '/currency'],
    ];
    for (const [body, status, code, pointer] of cases) {
      const r = await p2p(body);
      expect(r.statusCode, JSON.stringify(body) + r.body).toBe(status);
      expect(r.json().errors[0].code).toBe(code);
      if (pointer) expect(r.json().errors[0].source?.pointer).toBe(pointer);
    }
    const sent = (await p2p({ to_user: bob.email, amount: '1.00', currency: 'USD' })).json().data;
    const stranger = await createTestUser();
    expect((await call('GET', `/api/v2/mobile/transfers/p2p/${sent.id}`, undefined, stranger.headers)).statusCode).toBe(404);
    const taken = await call('PATCH', '/api/v2/mobile/profile', { handle: 'bob_builder' }, stranger.headers);
    expect(taken.json().errors[0]).toMatchObject({ code: 'HANDLE_TAKEN', source: { pointer: '/handle' } });
    await waitForTransfer(t, t.headers, sent.id, settled);
  });

  it('20 concurrent A→B and B→A transfers complete without deadlock and conserve money', async () => {
    const a = await createTestUser();
    const b = await createTestUser();
    const aAcct = await openFundedAccount(t, a.headers, '1000.00');
    const bAcct = await openFundedAccount(t, b.headers, '1000.00');
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? p2p({ to_user: b.email, amount: '7.00', currency: 'USD' }, a.headers) : p2p({ to_user: a.email, amount: '7.00', currency: 'USD' }, b.headers))),
    );
    expect(rs.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const done = await Promise.all(rs.map((r, i) => waitForTransfer(t, i % 2 === 0 ? a.headers : b.headers, r.json().data.id, settled, 60_000)));
    expect(done.every((d) => d.status === 'completed')).toBe(true);
    // Ten each way: each side paid 10 × 0.01 in fees.
    expect(await balance(t, a.headers, aAcct)).toMatchObject({ total_balance: '999.90' });
    expect(await balance(t, b.headers, bAcct)).toMatchObject({ total_balance: '999.90' });
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
  });
});

describe('activity feed, notifications and devices', () => {
  it("one feed of the caller's transfers, payments and notifications, newest first, pages without repeats", async () => {
    const carol = await createTestUser();
    await openFundedAccount(t, carol.headers, '100.00');
    const device = await call('POST', '/api/v2/mobile/devices', { platform: 'ios', push_token: 'apns-token-carol-0001', name: 'Carol phone' }, carol.headers);
    expect(device.statusCode, device.body).toBe(201);
    expect(device.json().data).toMatchObject({ platform: 'ios', push_token_suffix: 'l-0001' });
    const sent = (await p2p({ to_user: carol.email, amount: '3.00', currency: 'USD', note: 'for the ticket' }, bob.headers)).json().data;
    await waitForTransfer(t, bob.headers, sent.id, settled);
    for (let i = 0; i < 4; i++) {
      const x = (await p2p({ to_user: bob.email, amount: '1.00', currency: 'USD' }, carol.headers)).json().data;
      await waitForTransfer(t, carol.headers, x.id, settled);
    }
    await publish();

    const feed = (await call('GET', '/api/v2/mobile/activity?per_page=100', undefined, carol.headers)).json();
    const items = feed.data;
    const times = items.map((i: any) => Date.parse(i.occurred_at));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    const received = items.find((i: any) => i.type === 'transfer' && i.direction === 'received');
    expect(received).toMatchObject({ source_id: sent.id, counterparty: expect.stringContaining('Test User'), amount: '3.00', p2p: true, receipt_id: `rcpt_${sent.id}`, description: 'for the ticket' });
    expect(items.filter((i: any) => i.type === 'transfer' && i.direction === 'sent')).toHaveLength(4);
    const note = items.find((i: any) => i.type === 'notification');
    expect(note).toMatchObject({ title: 'Money received', read: false });
    expect(note.description).toContain('3 USD');
    expect(feed.meta.total).toBe(items.length);

    // Pages of 2 cover the same items in the same order, once each.
    const paged: string[] = [];
    for (let page = 1; page <= Math.ceil(items.length / 2); page++) {
      paged.push(...(await call('GET', `/api/v2/mobile/activity?per_page=2&page=${page}`, undefined, carol.headers)).json().data.map((i: any) => i.id));
    }
    expect(paged).toEqual(items.map((i: any) => i.id));
    expect((await call('GET', '/api/v2/mobile/activity?type=notification', undefined, carol.headers)).json().data.every((i: any) => i.type === 'notification')).toBe(true);

    // The notification was pushed once to Carol's phone; publishing again changes nothing.
    const notes = (await call('GET', '/api/v2/mobile/notifications?unread=true', undefined, carol.headers)).json().data;
    expect(notes).toHaveLength(1);
    await publish();
    const { rows } = await getPool().query(`SELECT status, adapter, provider_message_id FROM push_deliveries WHERE notification_id = $1`, [notes[0].id]);
    expect(rows).toEqual([{ status: 'sent', adapter: 'sandbox-push', provider_message_id: expect.stringMatching(/^sbx-[0-9a-f]{24}$/) }]);
    expect((await call('POST', `/api/v2/mobile/notifications/${notes[0].id}/read`, {}, carol.headers)).json().data.read_at).not.toBeNull();
    expect((await call('GET', '/api/v2/mobile/notifications?unread=true', undefined, carol.headers)).json().data).toHaveLength(0);
    expect((await call('POST', `/api/v2/mobile/notifications/${notes[0].id}/read`, {}, bob.headers)).statusCode).toBe(404);
  });

  it('an unregistered push token revokes its device; devices are per user', async () => {
    const dave = await createTestUser();
    await openFundedAccount(t, dave.headers, '0');
    const dev = (await call('POST', '/api/v2/mobile/devices', { platform: 'android', push_token: 'fcm-unregistered-token-1' }, dave.headers)).json().data;
    const x = (await p2p({ to_user: dave.email, amount: '2.00', currency: 'USD' }, bob.headers)).json().data;
    await waitForTransfer(t, bob.headers, x.id, settled);
    await publish();
    const { rows } = await getPool().query(`SELECT p.status, p.error, d.revoked_at FROM push_deliveries p JOIN mobile_devices d ON d.id = p.device_id WHERE d.id = $1`, [dev.id]);
    expect(rows[0]).toMatchObject({ status: 'failed', error: 'UNREGISTERED' });
    expect(rows[0].revoked_at).not.toBeNull();
    expect((await call('GET', '/api/v2/mobile/devices', undefined, dave.headers)).json().data).toEqual([]);
    expect((await call('DELETE', `/api/v2/mobile/devices/${dev.id}`, undefined, bob.headers)).statusCode).toBe(404);
  });
});

describe('receive details', () => {
  it('per chain: the custodial address and a payment request URI (EIP-681, BIP-21, Solana Pay); a platform link by handle', async () => {
    const acct = await openFundedAccount(t, bob.headers, '0');
    const usdc = (await call('GET', `/api/v2/mobile/receive?asset=USDC&amount=12.5&account_id=${acct}`, undefined, bob.headers)).json().data;
    const eth = usdc.options.find((o: any) => o.chain === 'ethereum');
    expect(eth.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // USDC has 6 decimals on Ethereum: 12.5 USDC = 12500000 units, to the token contract's transfer().
    expect(eth.uri).toBe(`ethereum:${eth.token_address}@1/transfer?address=${eth.address}&uint256=12500000`);
    expect(eth.standard).toBe('EIP-681');
    const sol = usdc.options.find((o: any) => o.chain === 'solana');
    expect(sol.uri).toBe(`solana:${sol.address}?amount=12.5&spl-token=${sol.token_address}`);
    expect(usdc.options.find((o: any) => o.kind === 'platform').uri).toMatch(/\/pay\/%40bob_builder\?currency=USDC&amount=12.5$/);
    const ethNative = (await call('GET', '/api/v2/mobile/receive?asset=ETH&amount=0.5&chain=ethereum', undefined, bob.headers)).json().data;
    expect(ethNative.options[0].uri).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@1\?value=500000000000000000$/);
    const btc = (await call('GET', '/api/v2/mobile/receive?asset=BTC&amount=0.001', undefined, bob.headers)).json().data;
    expect(btc.options[0]).toMatchObject({ chain: 'bitcoin', standard: 'BIP-21' });
    expect(btc.options[0].uri).toMatch(/^bitcoin:bc1[0-9a-z]+\?amount=0\.001$/);
    expect((await call('GET', '/api/v2/mobile/receive?asset=USDC&chain=bitcoin', undefined, bob.headers)).json().errors[0]).toMatchObject({ code: 'UNSUPPORTED_CHAIN', source: { pointer: '/chain' } });
    expect((await call('GET', `/api/v2/mobile/receive?asset=USD&account_id=${acct}`, undefined, t.headers)).statusCode).toBe(404);
  });
});
