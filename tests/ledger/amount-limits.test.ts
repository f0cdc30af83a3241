import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { clearAssetCache, getAsset } from '../../domain/assets';
import { getPool } from '../../domain/db/pool';
import { LedgerError, postEntry, systemAccount } from '../../domain/ledger';
import { parseRequestAmount } from '../../domain/money/amount';
import { loadConfig } from '../../domain/platform/config';
import { DomainError } from '../../domain/platform/errors';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount, settled, waitForTransfer } from '../transfers/helpers';
import { key } from './helpers';

// EUR gets small operator limits through the setting; USD keeps the migration's defaults.
const LIMITS = 'EUR:max_amount=500,max_balance=1000; CHF:max_amount=2000';

let t: TestApp;
let w: TestWorker;
let admin: TestUser;
let previousLimits: string | undefined;
beforeAll(async () => {
  previousLimits = process.env.ASSET_LIMITS;
  process.env.ASSET_LIMITS = LIMITS;
  t = await createTestApp();
  w = await startTestWorker();
  admin = await createTestUser({ admin: true });
});
afterAll(async () => {
  await w.stop();
  await t.close();
  if (previousLimits === undefined) delete process.env.ASSET_LIMITS;
  else process.env.ASSET_LIMITS = previousLimits;
  clearAssetCache();
});

type Headers = Record<string, string>;
const post = (url: string, payload: unknown, headers: Headers = t.headers) => t.app.inject({ method: 'POST', url, headers, payload: payload as object });
const deposit = (id: string, amount: unknown, asset = 'USD', headers: Headers = t.headers) =>
  post(`/api/v2/accounts/${id}/deposit`, { amount, asset_code: asset }, headers);
const withdraw = (id: string, amount: unknown, asset = 'USD', headers: Headers = t.headers) =>
  post(`/api/v2/accounts/${id}/withdraw`, { amount, asset_code: asset }, headers);
const transfer = (payload: Record<string, unknown>, headers: Headers = t.headers) => post('/api/v2/transfers', payload, headers);

function expectError(res: { statusCode: number; body: string; json(): { errors: Array<{ code: string; source?: { pointer?: string } }> } }, status: number, code: string, pointer?: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().errors[0].code, res.body).toBe(code);
  if (pointer) expect(res.json().errors[0].source?.pointer).toBe(pointer);
}

describe('shared totals cannot be overflowed by one customer', () => {
  it('105 huge deposits are refused with 422 and another customer can still deposit', async () => {
    const attacker = await openFundedAccount(t, t.headers, '0');
    const codes = new Set<string>();
    for (let i = 0; i < 105; i++) {
      const r = await deposit(attacker, '99999999999999999999.99');
      expect(r.statusCode, r.body).toBe(422);
      codes.add(r.json().errors[0].code);
    }
    expect([...codes]).toEqual(['AMOUNT_TOO_LARGE']);
    // 21 and more integer digits: the same 422, never a 500.
    expectError(await deposit(attacker, '123456789012345678901234567890.00'), 422, 'AMOUNT_TOO_LARGE', '/amount');

    const other = await createTestUser();
    const victim = await openFundedAccount(t, other.headers, '0');
    const ok = await deposit(victim, '100.00', 'USD', other.headers);
    expect(ok.statusCode, ok.body).toBe(201);
    expect(await balance(t, other.headers, victim)).toMatchObject({ total_balance: '100.00' });

    // Production deposits (pending against the settlement shards) are capped the same way.
    const prod = await createTestUser({ environment: 'production' });
    const prodAccount = await openFundedAccount(t, prod.headers, '0');
    expectError(await deposit(prodAccount, '99999999999999999999.99', 'USD', prod.headers), 422, 'AMOUNT_TOO_LARGE', '/amount');
  });

  it('a shard already past the old 20-digit limit keeps accepting postings (ledger layer)', async () => {
    // Without the cap, 20-digit amounts can still reach the ledger from inside the platform: two of
    // them used to overflow NUMERIC(38,18) totals on the shared shards.
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'overflow-shard');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'overflow-shard');
    // The shard is shared (the other tests' deposits can land on it): compare against its total before.
    const before = await getPool().query<{ dp: string }>('SELECT debits_posted::text AS dp FROM ledger_accounts WHERE id = $1', [funding]);
    for (let i = 0; i < 3; i++) {
      const e = await postEntry({
        environment: 'sandbox',
        idempotencyKey: key('huge'),
        type: 'adjustment',
        lines: [
          { accountId: funding, direction: 'debit', amount: '99999999999999999999.99' },
          { accountId: suspense, direction: 'credit', amount: '99999999999999999999.99' },
        ],
      });
      expect(e.status).toBe('posted');
    }
    const { rows } = await getPool().query<{ dp: string }>(
      'SELECT trim_scale(debits_posted - $2::numeric)::text AS dp FROM ledger_accounts WHERE id = $1',
      [funding, before.rows[0].dp],
    );
    expect(rows[0].dp).toBe('299999999999999999999.97');
  });

  it('an overflow that still happens is AMOUNT_OUT_OF_RANGE for the posting that caused it, and others go on', async () => {
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'near-limit');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'near-limit');
    const spare = await systemAccount('sandbox', 'USD', 'suspense', 'elsewhere');
    expect(spare).not.toBe(suspense);
    // A total at the edge of what the column holds (no realistic history gets here); put back after.
    const edge = '999999999990000000000000000000';
    await getPool().query(`UPDATE ledger_accounts SET credits_posted = credits_posted + $2::numeric WHERE id = $1`, [suspense, edge]);
    const err = await postEntry({
      environment: 'sandbox',
      idempotencyKey: key('over'),
      type: 'adjustment',
      lines: [
        { accountId: funding, direction: 'debit', amount: '99999999999999999999' },
        { accountId: suspense, direction: 'credit', amount: '99999999999999999999' },
      ],
    }).catch((e: unknown) => e);
    await getPool().query(`UPDATE ledger_accounts SET credits_posted = credits_posted - $2::numeric WHERE id = $1`, [suspense, edge]);
    expect(err).toBeInstanceOf(LedgerError);
    expect((err as LedgerError).code).toBe('AMOUNT_OUT_OF_RANGE');
    expect(statusForCode((err as LedgerError).code)).toBe(422); // the API's status for the code (api/error-status.ts)
    const fine = await postEntry({
      environment: 'sandbox',
      idempotencyKey: key('fine'),
      type: 'adjustment',
      lines: [
        { accountId: funding, direction: 'debit', amount: '10' },
        { accountId: spare, direction: 'credit', amount: '10' },
      ],
    });
    expect(fine.status).toBe('posted');
  });

  it('through the API an overflow is a 422 for that request, not a 500', async () => {
    // Every GBP funding shard at the edge of its column (put back after).
    const edge = '999999999999999999999999999999';
    const shards = `environment = 'sandbox' AND asset_code = 'GBP' AND kind = 'funding'`;
    await getPool().query(`UPDATE ledger_accounts SET debits_posted = debits_posted + $1::numeric WHERE ${shards}`, [edge]);
    try {
      const id = await openFundedAccount(t, t.headers, '0');
      expectError(await deposit(id, '10.00', 'GBP'), 422, 'AMOUNT_OUT_OF_RANGE');
      expect((await balance(t, t.headers, id, 'GBP'))?.total_balance ?? '0.00').toBe('0.00');
    } finally {
      await getPool().query(`UPDATE ledger_accounts SET debits_posted = debits_posted - $1::numeric WHERE ${shards}`, [edge]);
    }
  });
});

describe('maximum amount per operation', () => {
  it('deposit, withdraw and transfers above the asset maximum are 422 AMOUNT_TOO_LARGE', async () => {
    const asset = await getAsset('USD');
    expect(asset).toMatchObject({ maxAmount: '1000000000.00', maxBalance: '100000000000.00' });
    const from = await openFundedAccount(t, t.headers, '1000000000.00'); // exactly the maximum is fine
    const to = await openFundedAccount(t, t.headers, '0');
    expectError(await deposit(from, '1000000000.01'), 422, 'AMOUNT_TOO_LARGE', '/amount');
    expectError(await withdraw(from, '1000000000.01'), 422, 'AMOUNT_TOO_LARGE', '/amount');
    for (const workflow_enabled of [true, false]) {
      expectError(await transfer({ from_account: from, to_account: to, amount: '1000000000.01', asset_code: 'USD', workflow_enabled }), 422, 'AMOUNT_TOO_LARGE', '/amount');
    }
    // Unversioned /api/transfers with a JSON number, and with a decimal string.
    expectError(await post('/api/transfers', { from_account: from, to_account: to, amount: 2000000000, currency: 'USD' }), 422, 'AMOUNT_TOO_LARGE', '/amount');
    expectError(await post('/api/transfers', { from_account: from, to_account: to, amount: '99999999999999999999.99', currency: 'USD' }), 422, 'AMOUNT_TOO_LARGE', '/amount');
    const fine = await post('/api/transfers', { from_account: from, to_account: to, amount: 12.5, currency: 'USD' });
    expect(fine.statusCode, fine.body).toBe(201);
    expect(await balance(t, t.headers, from)).toMatchObject({ total_balance: '999999987.49' }); // 12.50 and a 0.01 fee
  });

  it('manual ledger entries (operators) are held to the same maximum per line', async () => {
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'manual');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'manual');
    const r = await post(
      '/api/v1/ledger/entries',
      { lines: [{ account_id: funding, direction: 'debit', amount: '5000000000.00' }, { account_id: suspense, direction: 'credit', amount: '5000000000.00' }] },
      admin.headers,
    );
    expectError(r, 422, 'AMOUNT_TOO_LARGE', '/lines/0/amount');
  });

  it('the parser refuses by the asset it is given, before any other rule', () => {
    const usd = { code: 'USD', precision: 2, maxAmount: '1000000000.00' };
    expect(parseRequestAmount('1000000000', usd)).toBe('1000000000.00');
    for (const v of ['1000000000.01', '99999999999999999999.99', '100000000000000000000000000000000000000000']) {
      const err = (() => {
        try {
          parseRequestAmount(v, usd, '/send_amount');
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(DomainError);
      // The error carries the code; its status is the API's for that code (api/error-status.ts).
      const refusal = { status: statusForCode((err as DomainError).code), code: (err as DomainError).code, pointer: (err as DomainError).pointer };
      expect(refusal).toMatchObject({ status: 422, code: 'AMOUNT_TOO_LARGE', pointer: '/send_amount' });
    }
  });
});

describe('maximum balance per customer account', () => {
  it('a deposit that would take the balance above the maximum is 422 BALANCE_LIMIT_EXCEEDED', async () => {
    const id = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    expect((await deposit(id, '500.00', 'EUR')).statusCode).toBe(201); // exactly the maximum
    expectError(await deposit(id, '0.01', 'EUR'), 422, 'BALANCE_LIMIT_EXCEEDED');
    expect(await balance(t, t.headers, id, 'EUR')).toMatchObject({ total_balance: '1000.00' });
    // Spending makes room again.
    expect((await withdraw(id, '100.00', 'EUR')).statusCode).toBe(201);
    expect((await deposit(id, '100.00', 'EUR')).statusCode).toBe(201);
  });

  it('pending inflows count: production deposits awaiting settlement cannot stack above the maximum', async () => {
    const prod = await createTestUser({ environment: 'production' });
    const id = await openFundedAccount(t, prod.headers, '0');
    expect((await deposit(id, '500.00', 'EUR', prod.headers)).statusCode).toBe(201);
    expect((await deposit(id, '500.00', 'EUR', prod.headers)).statusCode).toBe(201);
    expectError(await deposit(id, '0.01', 'EUR', prod.headers), 422, 'BALANCE_LIMIT_EXCEEDED');
  });

  it('an immediate (group commit) transfer to a full account is 422 and nothing moves', async () => {
    const from = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    const other = await createTestUser();
    const to = await openFundedAccount(t, other.headers, '500.00', 'EUR');
    expect((await deposit(to, '400.00', 'EUR', other.headers)).statusCode).toBe(201);
    const r = await transfer({ from_account: from, to_account: to, amount: '200.00', asset_code: 'EUR', workflow_enabled: false });
    expectError(r, 422, 'BALANCE_LIMIT_EXCEEDED');
    const legacy = await post('/api/transfers', { from_account: from, to_account: to, amount: 100.01, currency: 'EUR' });
    expectError(legacy, 422, 'BALANCE_LIMIT_EXCEEDED');
    expect(await balance(t, t.headers, from, 'EUR')).toMatchObject({ total_balance: '500.00' });
    expect(await balance(t, other.headers, to, 'EUR')).toMatchObject({ total_balance: '900.00' });
    const fits = await transfer({ from_account: from, to_account: to, amount: '100.00', asset_code: 'EUR', workflow_enabled: false });
    expect(fits.statusCode, fits.body).toBe(201);
    expect(await balance(t, other.headers, to, 'EUR')).toMatchObject({ total_balance: '1000.00' });
  });

  it('the set-wise batch applies the rule too: a batch that would overfill an account is judged one by one', async () => {
    const a = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    const b = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    const c = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    expect((await deposit(c, '300.00', 'EUR')).statusCode).toBe(201); // c holds 800
    const prepare = (from: string, to: string, amount: string) =>
      t.app.transfers.prepareImmediateTransfer({ userId: t.user.userId, environment: 'sandbox', fromAccountId: from, toAccountId: to, amount, assetCode: 'EUR' });
    // Each alone fits (800 + 150), together they do not: the second is refused.
    const items = [(await prepare(a, c, '150.00')).item, (await prepare(b, c, '150.00')).item];
    const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT transfers_create_immediate_batch_setwise($1::jsonb) AS r', [JSON.stringify(items)]);
      const results = rows[0].r.results as Array<{ ok: boolean; message?: string }>;
      expect(results.map((x) => (x.ok ? 'ok' : x.message?.split(':')[0]))).toEqual(['ok', 'BALANCE_LIMIT_EXCEEDED']);
    } finally {
      await db.end();
    }
    expect(await balance(t, t.headers, c, 'EUR')).toMatchObject({ total_balance: '950.00' });
    expect(await balance(t, t.headers, b, 'EUR')).toMatchObject({ total_balance: '500.00' });
  });

  it('a workflow transfer to a full account fails with BALANCE_LIMIT_EXCEEDED and releases the reservation', async () => {
    const from = await openFundedAccount(t, t.headers, '500.00', 'EUR');
    const other = await createTestUser();
    const to = await openFundedAccount(t, other.headers, '500.00', 'EUR');
    expect((await deposit(to, '400.00', 'EUR', other.headers)).statusCode).toBe(201);
    const r = await transfer({ from_account: from, to_account: to, amount: '200.00', asset_code: 'EUR', workflow_enabled: true });
    expect(r.statusCode, r.body).toBe(201);
    const done = await waitForTransfer(t, t.headers, r.json().data.uuid, settled);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'BALANCE_LIMIT_EXCEEDED' } });
    expect(await balance(t, t.headers, from, 'EUR')).toMatchObject({ total_balance: '500.00', available_balance: '500.00' });
    expect(await balance(t, other.headers, to, 'EUR')).toMatchObject({ total_balance: '900.00' });
  });
});

describe('limits are settings', () => {
  it('ASSET_LIMITS overrides the defaults per asset, in the API and in the ledger', async () => {
    expect(loadConfig().assetLimits).toEqual({ EUR: { maxAmount: '500', maxBalance: '1000' }, CHF: { maxAmount: '2000' } });
    expect(await getAsset('EUR')).toMatchObject({ maxAmount: '500.00', maxBalance: '1000.00' });
    // CHF keeps its default maximum balance; only the amount was overridden.
    expect(await getAsset('CHF')).toMatchObject({ maxAmount: '2000.00', maxBalance: '100000000000.00' });
    const { rows } = await getPool().query<{ max_amount: string; max_balance: string }>(
      `SELECT trim_scale(max_amount)::text AS max_amount, trim_scale(max_balance)::text AS max_balance FROM assets WHERE code = 'EUR'`,
    );
    expect(rows[0]).toEqual({ max_amount: '500', max_balance: '1000' });
    const id = await openFundedAccount(t, t.headers, '0');
    expectError(await deposit(id, '500.01', 'EUR'), 422, 'AMOUNT_TOO_LARGE', '/amount');
    expect((await deposit(id, '500.01', 'USD')).statusCode).toBe(201);
    expectError(await deposit(id, '2000.01', 'CHF'), 422, 'AMOUNT_TOO_LARGE', '/amount');
  });

  it('a malformed setting is refused with a clear message', () => {
    const saved = process.env.ASSET_LIMITS;
    try {
      for (const bad of ['USD', 'USD:max_amount=abc', 'USD:maximum=5', 'USD:max_amount=0', 'USD:max_amount=10000000000000000']) {
        process.env.ASSET_LIMITS = bad;
        expect(() => loadConfig(), bad).toThrow(/ASSET_LIMITS/);
      }
    } finally {
      process.env.ASSET_LIMITS = saved;
    }
  });
});
