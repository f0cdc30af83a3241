import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { getBalances } from '../../domain/accounts';
import { closePool, getPool } from '../../domain/db/pool';
import { getEntry, getEntryByIdempotencyKey, LedgerError, postEntry, systemAccount, type PostEntryInput } from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, expectLedgerError, key, makeCustomer, totals, transfer } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

describe('posting entries', () => {
  it('posts a balanced entry, moves posted totals and returns the entry with lines', async () => {
    const a = await makeCustomer('USD');
    const entry = await deposit(a.la, 'USD', '100.5', { reference: 'dep-1' });
    expect(entry).toMatchObject({ status: 'posted', type: 'deposit', reference: 'dep-1', environment: 'sandbox', twoPhase: false });
    expect(entry.id).toMatch(/^je_[0-9a-f]{32}$/);
    expect(entry.lines).toHaveLength(2);
    const credit = entry.lines.find((l) => l.accountId === a.la)!;
    expect(credit).toMatchObject({ direction: 'credit', amount: '100.50', assetCode: 'USD', balanceAfter: '100.50', status: 'posted', transactionType: 'deposit' });
    expect(credit.id).toMatch(/^txn_/);
    expect(await totals(a.la)).toMatchObject({ credits_posted: '100.5', debits_posted: '0', debits_pending: '0' });
    const b = await getBalances(a.account.id);
    expect(b.balances).toEqual([{ asset_code: 'USD', available_balance: '100.50', reserved_balance: '0.00', total_balance: '100.50' }]);
    expect(await getEntry(entry.id)).toEqual(entry);
    expect(await getEntryByIdempotencyKey('sandbox', entry.idempotencyKey)).toEqual(entry);
    expect(await getEntry('je_missing')).toBeNull();
  });

  it('refuses unbalanced entries, and balance is checked per asset', async () => {
    const usd = await makeCustomer('USD');
    const eur = await makeCustomer('EUR');
    await deposit(usd.la, 'USD', '50');
    const fundUsd = await systemAccount('sandbox', 'USD', 'funding');
    const fundEur = await systemAccount('sandbox', 'EUR', 'funding');
    await expectLedgerError(
      postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'manual', lines: [
        { accountId: fundUsd, direction: 'debit', amount: '10.00' },
        { accountId: usd.la, direction: 'credit', amount: '9.99' },
      ] }),
      'UNBALANCED',
    );
    // 10 USD against 10 EUR: the sums are equal but each asset on its own is not balanced.
    const err = await expectLedgerError(
      postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'manual', lines: [
        { accountId: fundUsd, direction: 'debit', amount: '10' },
        { accountId: eur.la, direction: 'credit', amount: '10' },
      ] }),
      'UNBALANCED',
    );
    expect(statusForCode(err.code)).toBe(422); // the API's status for the code (api/error-status.ts)
    // A balanced multi-asset entry (an exchange) is fine: each asset balances on its own.
    const fx = await postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'exchange', lines: [
      { accountId: usd.la, direction: 'debit', amount: '10.80' },
      { accountId: fundUsd, direction: 'credit', amount: '10.80' },
      { accountId: fundEur, direction: 'debit', amount: '10.00' },
      { accountId: eur.la, direction: 'credit', amount: '10.00' },
    ] });
    expect(fx.lines.map((l) => [l.assetCode, l.amount])).toEqual([['USD', '10.80'], ['USD', '10.80'], ['EUR', '10.00'], ['EUR', '10.00']]);
    expect((await getBalances(usd.account.id)).balances[0].total_balance).toBe('39.20');
    expect((await getBalances(eur.account.id)).balances[0].total_balance).toBe('10.00');
    await expectLedgerError(postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'manual', lines: [{ accountId: usd.la, direction: 'debit', amount: '1' }] }), 'INVALID_ENTRY');
  });

  it('rejects amounts that are malformed, not positive or too precise for the asset', async () => {
    const jpy = await makeCustomer('JPY');
    const btc = await makeCustomer('BTC');
    const eth = await makeCustomer('ETH');
    const cases: Array<[string, string, string]> = [
      [jpy.la, '100.5', 'AMOUNT_PRECISION'],
      [btc.la, '0.000000001', 'AMOUNT_PRECISION'],
      [jpy.la, '0', 'AMOUNT_NOT_POSITIVE'],
      [jpy.la, '-5', 'AMOUNT_NOT_POSITIVE'],
      [jpy.la, '1e3', 'INVALID_AMOUNT'],
      [jpy.la, ' 10', 'INVALID_AMOUNT'],
      [jpy.la, '10.', 'INVALID_AMOUNT'],
      [jpy.la, '1,000', 'INVALID_AMOUNT'],
      [jpy.la, '123456789012345678901', 'INVALID_AMOUNT'],
    ];
    for (const [la, amount, code] of cases) {
      const asset = la === jpy.la ? 'JPY' : 'BTC';
      const funding = await systemAccount('sandbox', asset, 'funding');
      await expectLedgerError(
        postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'deposit', lines: [
          { accountId: funding, direction: 'debit', amount },
          { accountId: la, direction: 'credit', amount },
        ] }),
        code,
      );
    }
    // A number is never money, even when it looks right.
    await expectLedgerError(
      postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'deposit', lines: [
        { accountId: jpy.la, direction: 'debit', amount: 5 as unknown as string },
        { accountId: jpy.la, direction: 'credit', amount: '5' },
      ] }),
      'INVALID_AMOUNT',
    );
    // Exactly at precision is accepted, and canonicalised at the asset's scale.
    expect((await deposit(btc.la, 'BTC', '0.00000001')).lines[1].amount).toBe('0.00000001');
    expect((await deposit(eth.la, 'ETH', '1.000000000000000001')).lines[1].amount).toBe('1.000000000000000001');
    expect((await deposit(jpy.la, 'JPY', '1500')).lines[1].amount).toBe('1500');
  });

  it('replays the same idempotency key and refuses the key with different content', async () => {
    const a = await makeCustomer('USD');
    const k = key('idem');
    const first = await deposit(a.la, 'USD', '25.00', { idempotencyKey: k, reference: 'r' });
    const replay = await deposit(a.la, 'USD', '25', { idempotencyKey: k, reference: 'r' });
    expect(replay).toEqual(first);
    expect(await totals(a.la)).toMatchObject({ credits_posted: '25' });
    const err = await expectLedgerError(deposit(a.la, 'USD', '26.00', { idempotencyKey: k, reference: 'r' }), 'IDEMPOTENCY_CONFLICT');
    expect(err.details.entry_id).toBe(first.id);
    // The key is scoped to the environment: the same key in production is another entry.
    const prod = await makeCustomer('USD', 'production');
    const p = await deposit(prod.la, 'USD', '25.00', { idempotencyKey: k, environment: 'production', reference: 'r' });
    expect(p.id).not.toBe(first.id);

    // Concurrent posts of one key: exactly one entry, everybody gets it.
    const k2 = key('race');
    const results = await Promise.all(Array.from({ length: 8 }, () => deposit(a.la, 'USD', '1.00', { idempotencyKey: k2 })));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await totals(a.la)).toMatchObject({ credits_posted: '26' });
  });

  it('checks accounts: unknown, other environment, asset guard', async () => {
    const a = await makeCustomer('USD');
    const prod = await makeCustomer('USD', 'production');
    const funding = await systemAccount('sandbox', 'USD', 'funding');
    const base: Omit<PostEntryInput, 'lines'> = { environment: 'sandbox', idempotencyKey: '', type: 'deposit' };
    await expectLedgerError(postEntry({ ...base, idempotencyKey: key(), lines: [
      { accountId: funding, direction: 'debit', amount: '1' }, { accountId: 'la_nope', direction: 'credit', amount: '1' }] }), 'ACCOUNT_NOT_FOUND');
    await expectLedgerError(postEntry({ ...base, idempotencyKey: key(), lines: [
      { accountId: funding, direction: 'debit', amount: '1' }, { accountId: prod.la, direction: 'credit', amount: '1' }] }), 'ENVIRONMENT_MISMATCH');
    await expectLedgerError(postEntry({ ...base, idempotencyKey: key(), lines: [
      { accountId: funding, direction: 'debit', amount: '1' }, { accountId: a.la, direction: 'credit', amount: '1', assetCode: 'EUR' }] }), 'ASSET_MISMATCH');
    await expectLedgerError(postEntry({ ...base, idempotencyKey: '', lines: [
      { accountId: funding, direction: 'debit', amount: '1' }, { accountId: a.la, direction: 'credit', amount: '1' }] }), 'INVALID_ENTRY');
    expect(await totals(a.la)).toMatchObject({ credits_posted: '0' });
  });

  it('refuses to overdraw a customer account, but system accounts may go negative', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '10.00');
    const err = await expectLedgerError(transfer(a.la, b.la, '10.01'), 'INSUFFICIENT_FUNDS');
    expect(err.details.shortfall).toEqual([{ account_id: a.la, amount: '0.01' }]);
    await transfer(a.la, b.la, '10.00');
    expect((await getBalances(a.account.id)).balances[0].total_balance).toBe('0.00');
    // Funding (debit-normal) paying out more than it ever received is allowed: it is the source of money.
    const fee = await systemAccount('sandbox', 'USD', 'fee_revenue');
    const e = await postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'manual', lines: [
      { accountId: fee, direction: 'debit', amount: '5.00' }, { accountId: b.la, direction: 'credit', amount: '5.00' }] });
    expect(e.lines[0].balanceAfter?.startsWith('-')).toBe(true);
  });

  it('writes outbox events in the same transaction as the posting', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '30');
    const e = await transfer(a.la, b.la, '12.34', { reference: 'evt-test' });
    const { rows } = await getPool().query<{ type: string; user_id: string; aggregate_id: string; data: Record<string, string> }>(
      `SELECT type, user_id, aggregate_id, data FROM platform_events WHERE data->>'entry_id' = $1 ORDER BY type, aggregate_id`,
      [e.id],
    );
    expect(rows.map((r) => r.type).sort()).toEqual([
      'account.balance_updated', 'account.balance_updated',
      'transaction.completed', 'transaction.completed', 'transaction.created', 'transaction.created',
    ]);
    const out = rows.find((r) => r.type === 'transaction.completed' && r.data.type === 'transfer_out')!;
    expect(out.user_id).toBe(a.userId);
    expect(out.data).toMatchObject({ account_id: a.account.id, amount: '12.34', asset_code: 'USD', status: 'completed', reference: 'evt-test', balance_after: '17.66' });
    const bal = rows.find((r) => r.type === 'account.balance_updated' && r.aggregate_id === b.account.id)!;
    expect(bal.data).toMatchObject({ available_balance: '12.34', total_balance: '12.34', reserved_balance: '0.00' });
    // A refused posting leaves no events behind.
    const before = await getPool().query(`SELECT count(*)::int AS n FROM platform_events`);
    await expectLedgerError(transfer(a.la, b.la, '1000'), 'INSUFFICIENT_FUNDS');
    const after = await getPool().query(`SELECT count(*)::int AS n FROM platform_events`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

describe('database guarantees', () => {
  it('refuses UPDATE and DELETE of posted entries and lines', async () => {
    const a = await makeCustomer('USD');
    const e = await deposit(a.la, 'USD', '5');
    const pool = getPool();
    await expect(pool.query(`UPDATE ledger_lines SET amount = 500 WHERE entry_id = $1`, [e.id])).rejects.toThrow(/IMMUTABLE/);
    await expect(pool.query(`UPDATE ledger_lines SET status = 'voided' WHERE entry_id = $1`, [e.id])).rejects.toThrow(/IMMUTABLE/);
    await expect(pool.query(`DELETE FROM ledger_lines WHERE entry_id = $1`, [e.id])).rejects.toThrow(/IMMUTABLE/);
    await expect(pool.query(`UPDATE journal_entries SET status = 'voided' WHERE id = $1`, [e.id])).rejects.toThrow(/IMMUTABLE/);
    await expect(pool.query(`UPDATE journal_entries SET reference = 'changed' WHERE id = $1`, [e.id])).rejects.toThrow(/IMMUTABLE/);
    await expect(pool.query(`DELETE FROM journal_entries WHERE id = $1`, [e.id])).rejects.toThrow(/IMMUTABLE/);
    await expect(pool.query(`TRUNCATE ledger_lines CASCADE`)).rejects.toThrow(/IMMUTABLE/);
    expect(await getEntry(e.id)).toEqual(e);
  });

  it('the CHECK constraint refuses an overdraft written with raw SQL, bypassing the posting function', async () => {
    const a = await makeCustomer('USD');
    await deposit(a.la, 'USD', '10');
    const pool = getPool();
    const raw = [
      `UPDATE ledger_accounts SET debits_posted = debits_posted + 10.01 WHERE id = $1`,
      `UPDATE ledger_accounts SET debits_pending = debits_pending + 11 WHERE id = $1`,
      `UPDATE ledger_accounts SET debits_posted = 5, debits_pending = 5.01 WHERE id = $1`,
      `UPDATE ledger_accounts SET debits_posted = -5 WHERE id = $1`,
    ];
    for (const sql of raw) {
      await expect(pool.query(sql, [a.la])).rejects.toMatchObject({ code: '23514' });
    }
    // Exactly all the money is fine.
    await pool.query(`UPDATE ledger_accounts SET debits_posted = debits_posted + 10 WHERE id = $1`, [a.la]);
    expect(await totals(a.la)).toMatchObject({ debits_posted: '10', credits_posted: '10' });
    // The backstop maps to INSUFFICIENT_FUNDS for callers as well.
    const { toLedgerError } = await import('../../domain/ledger');
    const err = await pool.query(`UPDATE ledger_accounts SET debits_posted = 11 WHERE id = $1`, [a.la]).catch((e) => toLedgerError(e));
    expect(err).toBeInstanceOf(LedgerError);
    expect((err as LedgerError).code).toBe('INSUFFICIENT_FUNDS');
    // Put the raw write back: the file's ledger must balance for the money-invariants check.
    await pool.query(`UPDATE ledger_accounts SET debits_posted = debits_posted - 10 WHERE id = $1`, [a.la]);
  });
});
