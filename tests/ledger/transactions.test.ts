import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCustomerLedgerAccount } from '../../domain/accounts';
import { closePool } from '../../domain/db/pool';
import { DecimalMoney } from '../../domain/money/amount';
import { getTransaction, listTransactions, postEntry, postPending, reverseEntry, systemAccount, voidPending } from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, key, makeAccount, makeCustomer, transfer } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

describe('transactions view', () => {
  it('shows every customer line with type, status and balance_after, filtered and sorted', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD', 'sandbox', a.userId); // same user, second account
    const stranger = await makeCustomer('USD');
    const env = 'sandbox' as const;

    await deposit(a.la, 'USD', '100', { reference: 'dep' });
    await transfer(a.la, b.la, '30', { reference: 'rent' });
    const feeAcct = await systemAccount(env, 'USD', 'fee_revenue');
    const settlement = await systemAccount(env, 'USD', 'settlement');
    // A withdrawal with its fee in one entry: the fee line is typed explicitly.
    await postEntry({ environment: env, idempotencyKey: key(), type: 'withdrawal', reference: 'atm', lines: [
      { accountId: a.la, direction: 'debit', amount: '20' },
      { accountId: settlement, direction: 'credit', amount: '20' },
      { accountId: a.la, direction: 'debit', amount: '1.50', transactionType: 'fee' },
      { accountId: feeAcct, direction: 'credit', amount: '1.50' },
    ] });
    const pend = await transfer(a.la, stranger.la, '5', { pending: true, reference: 'held' });
    const failed = await transfer(a.la, stranger.la, '7', { pending: true, reference: 'cancelled' });
    await voidPending(failed.id, { idempotencyKey: key(), reason: 'x' });
    const toReverse = await transfer(b.la, a.la, '2', { reference: 'oops' });
    await reverseEntry(toReverse.id, { idempotencyKey: key(), reason: 'oops' });

    const all = await listTransactions({ userId: a.userId, environment: env, accountId: a.account.id, sort: 'created_at', perPage: 100 });
    expect(all.total).toBe(8);
    expect(all.items.map((t) => [t.type, t.amount, t.status, t.balanceAfter, t.reference])).toEqual([
      ['deposit', '100.00', 'completed', '100.00', 'dep'],
      ['transfer_out', '30.00', 'completed', '70.00', 'rent'],
      ['withdrawal', '20.00', 'completed', '50.00', 'atm'],
      ['fee', '1.50', 'completed', '48.50', 'atm'],
      ['transfer_out', '5.00', 'pending', null, 'held'],
      ['transfer_out', '7.00', 'failed', null, 'cancelled'],
      ['transfer_in', '2.00', 'completed', '50.50', 'oops'],
      ['reversal', '2.00', 'completed', '48.50', 'oops'],
    ]);
    expect(all.items[0].id).toMatch(/^txn_/);
    expect(all.items[0]).toMatchObject({ accountId: a.account.id, assetCode: 'USD', ledgerAccountId: a.la });
    expect(all.items[0].completedAt).toBeInstanceOf(Date);
    expect(all.items[4].completedAt).toBeNull();

    // Posting later fills status, completion and balance_after of the pending line.
    await postPending(pend.id, { idempotencyKey: key() });
    const posted = await getTransaction({ id: all.items[4].id, userId: a.userId, environment: env });
    expect(posted).toMatchObject({ status: 'completed', balanceAfter: '43.50' });
    expect(posted!.completedAt).toBeInstanceOf(Date);

    // Filters.
    const q = { userId: a.userId, environment: env, accountId: a.account.id };
    expect((await listTransactions({ ...q, type: 'transfer' })).total).toBe(4);
    expect((await listTransactions({ ...q, type: 'fee' })).items.map((t) => t.amount)).toEqual(['1.50']);
    expect((await listTransactions({ ...q, status: 'failed' })).items.map((t) => t.amount)).toEqual(['7.00']);
    expect((await listTransactions({ ...q, assetCode: 'EUR' })).total).toBe(0);
    const byAmount = await listTransactions({ ...q, sort: '-amount', perPage: 3 });
    expect(byAmount.items.map((t) => t.amount)).toEqual(['100.00', '30.00', '20.00']);
    expect(byAmount.total).toBe(8);
    expect((await listTransactions({ ...q, sort: 'amount', perPage: 2, page: 2 })).items.map((t) => t.amount)).toEqual(['2.00', '5.00']);
    const newest = await listTransactions({ ...q, perPage: 1 });
    expect(newest.items[0].type).toBe('reversal');
    const future = new Date(Date.now() + 60_000);
    expect((await listTransactions({ ...q, startDate: future })).total).toBe(0);
    expect((await listTransactions({ ...q, endDate: future })).total).toBe(8);

    // Across the user's accounts; and tenant isolation.
    const mine = await listTransactions({ userId: a.userId, environment: env, perPage: 100 });
    expect(mine.total).toBe(8 + 3); // b: transfer_in, transfer_out, reversal
    expect(mine.items.every((t) => t.accountId === a.account.id || t.accountId === b.account.id)).toBe(true);
    expect((await listTransactions({ userId: stranger.userId, environment: env, accountId: a.account.id })).total).toBe(0);
    expect(await getTransaction({ id: all.items[0].id, userId: stranger.userId, environment: env })).toBeNull();
    expect(await getTransaction({ id: all.items[0].id, userId: a.userId, environment: 'production' })).toBeNull();
  });

  it('balance_after follows the order lines hit the account under concurrency', async () => {
    const acct = await makeAccount();
    const la = await ensureCustomerLedgerAccount(acct.id, 'USD');
    await Promise.all(Array.from({ length: 30 }, () => deposit(la, 'USD', '1.25')));
    const { items } = await listTransactions({ userId: acct.userId, environment: 'sandbox', accountId: acct.id, sort: 'created_at', perPage: 100 });
    expect(items).toHaveLength(30);
    // Each line's balance is the previous one plus 1.25, in listing order.
    items.forEach((t, i) => expect(t.balanceAfter).toBe(new DecimalMoney('1.25').times(i + 1).toFixed(2)));
  });
});
