import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeAccount, getBalances } from '../../domain/accounts';
import { closePool } from '../../domain/db/pool';
import { getEntry, reverseEntry, trialBalance } from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, expectLedgerError, key, makeCustomer, totals, transfer } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

// The ledger's mechanism (reverseEntry) on any posted entry, as the rails' return processing uses it
// (an ACH return or pacs.004 reverses a payment's entry). Which transactions a customer or an operator
// may reverse through the API (only movements that stayed inside the ledger) is domain/reversals,
// tested kind by kind in tests/banking/reversals.test.ts.
describe('reversals', () => {
  it('reverses a posted entry once, with a linked entry of opposite lines', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '50');
    const t = await transfer(a.la, b.la, '20', { reference: 'to-reverse' });
    const k = key('rev');
    const rev = await reverseEntry(t.id, { idempotencyKey: k, reason: 'sent to the wrong account', userId: a.userId });
    expect(rev).toMatchObject({ type: 'reversal', status: 'posted', reversesEntryId: t.id, reference: 'to-reverse', userId: a.userId });
    expect(rev.lines.map((l) => [l.accountId, l.direction, l.amount, l.transactionType, l.balanceAfter])).toEqual([
      [a.la, 'credit', '20.00', 'reversal', '50.00'],
      [b.la, 'debit', '20.00', 'reversal', '0.00'],
    ]);
    expect((await getEntry(t.id))!.reversedByEntryId).toBe(rev.id);
    expect(await reverseEntry(t.id, { idempotencyKey: k, reason: 'retry' })).toEqual(rev);
    await expectLedgerError(reverseEntry(t.id, { idempotencyKey: key(), reason: 'again' }), 'ALREADY_REVERSED');
    // Concurrent reversals of one entry with different keys: one wins.
    const t2 = await transfer(a.la, b.la, '5');
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => reverseEntry(t2.id, { idempotencyKey: key(), reason: 'race' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('ALREADY_REVERSED');

    const pending = await transfer(a.la, b.la, '1', { pending: true });
    await expectLedgerError(reverseEntry(pending.id, { idempotencyKey: key(), reason: 'x' }), 'NOT_POSTED');
    await expectLedgerError(reverseEntry('je_nope', { idempotencyKey: key(), reason: 'x' }), 'ENTRY_NOT_FOUND');
  });

  it('refuses a reversal that would overdraw, unless forced; forced negative is recorded and repaid first', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    const dep = await deposit(a.la, 'USD', '100');
    await transfer(a.la, b.la, '70');
    // Reversing the deposit needs 100 but the account holds 30.
    const err = await expectLedgerError(reverseEntry(dep.id, { idempotencyKey: key(), reason: 'chargeback' }), 'INSUFFICIENT_FUNDS');
    expect(err.details.shortfall).toEqual([{ account_id: a.la, amount: '70.00' }]);
    expect((await getEntry(dep.id))!.reversedByEntryId).toBeNull();

    const forced = await reverseEntry(dep.id, { idempotencyKey: key(), reason: 'chargeback', force: true });
    expect(forced.forcedOverdraft).toEqual([{ accountId: a.la, amount: '70.00' }]);
    expect(forced.metadata).toMatchObject({ reason: 'chargeback', forced: true });
    expect(forced.lines.find((l) => l.accountId === a.la)!.balanceAfter).toBe('-70.00');
    expect((await getBalances(a.account.id)).balances[0]).toMatchObject({ total_balance: '-70.00', available_balance: '-70.00' });
    expect(await totals(a.la)).toMatchObject({ overdraft_allowance: '70' });

    // Nothing can be spent while negative.
    await expectLedgerError(transfer(a.la, b.la, '0.01'), 'INSUFFICIENT_FUNDS');
    // Money received repays the deficit first: the allowance shrinks and is never spendable again.
    await deposit(a.la, 'USD', '50');
    expect(await totals(a.la)).toMatchObject({ overdraft_allowance: '20' });
    await expectLedgerError(transfer(a.la, b.la, '0.01'), 'INSUFFICIENT_FUNDS');
    await deposit(a.la, 'USD', '25');
    expect(await totals(a.la)).toMatchObject({ overdraft_allowance: '0' });
    expect((await getBalances(a.account.id)).balances[0].available_balance).toBe('5.00');
    await expectLedgerError(transfer(a.la, b.la, '5.01'), 'INSUFFICIENT_FUNDS');
    await transfer(a.la, b.la, '5.00');
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
  });

  it('a frozen account refuses a normal reversal debit but a forced claw-back goes through', async () => {
    const a = await makeCustomer('USD');
    const dep = await deposit(a.la, 'USD', '40');
    await freezeAccount(a.account.id);
    await expectLedgerError(reverseEntry(dep.id, { idempotencyKey: key(), reason: 'fraud' }), 'ACCOUNT_FROZEN');
    const rev = await reverseEntry(dep.id, { idempotencyKey: key(), reason: 'fraud', force: true });
    expect(rev.forcedOverdraft).toBeNull();
    expect((await getBalances(a.account.id)).balances[0].total_balance).toBe('0.00');
  });
});
