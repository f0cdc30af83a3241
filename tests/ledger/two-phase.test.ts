import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalances } from '../../domain/accounts';
import { closePool, getPool } from '../../domain/db/pool';
import { getEntry, postPending, voidExpiredPending, voidPending } from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, expectLedgerError, key, makeCustomer, totals, transfer } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

describe('two-phase entries', () => {
  it('reserves funds while pending, then posts exactly once', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '100');
    const pending = await transfer(a.la, b.la, '60', { pending: true });
    expect(pending.status).toBe('pending');
    expect(pending.lines.every((l) => l.status === 'pending' && l.balanceAfter === null)).toBe(true);
    expect((await getBalances(a.account.id)).balances[0]).toMatchObject({ available_balance: '40.00', reserved_balance: '60.00', total_balance: '100.00' });
    // Incoming pending credit is not spendable yet.
    expect((await getBalances(b.account.id)).balances[0]).toMatchObject({ available_balance: '0.00', total_balance: '0.00' });
    // The reservation counts against the funds of the next debit.
    await expectLedgerError(transfer(a.la, b.la, '40.01'), 'INSUFFICIENT_FUNDS');

    const k = key('post');
    const posted = await postPending(pending.id, { idempotencyKey: k });
    expect(posted.status).toBe('posted');
    expect(posted.postedAt).toBeInstanceOf(Date);
    expect(posted.lines.map((l) => [l.accountId, l.status, l.balanceAfter])).toEqual([[a.la, 'posted', '40.00'], [b.la, 'posted', '60.00']]);
    expect(await totals(a.la)).toMatchObject({ debits_pending: '0', debits_posted: '60', credits_posted: '100' });
    expect(await totals(b.la)).toMatchObject({ credits_pending: '0', credits_posted: '60' });

    // Same key: the same answer. Another key, or a void: refused.
    expect(await postPending(pending.id, { idempotencyKey: k })).toEqual(posted);
    await expectLedgerError(postPending(pending.id, { idempotencyKey: key() }), 'ALREADY_POSTED');
    await expectLedgerError(voidPending(pending.id, { idempotencyKey: key(), reason: 'late' }), 'ALREADY_POSTED');
    expect(await totals(a.la)).toMatchObject({ debits_posted: '60' });
  });

  it('voids exactly once and releases the reservation', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '100');
    const pending = await transfer(a.la, b.la, '70', { pending: true });
    const k = key('void');
    const voided = await voidPending(pending.id, { idempotencyKey: k, reason: 'customer cancelled' });
    expect(voided).toMatchObject({ status: 'voided', voidReason: 'customer cancelled' });
    expect(voided.lines.every((l) => l.status === 'voided' && l.balanceAfter === null)).toBe(true);
    expect((await getBalances(a.account.id)).balances[0]).toMatchObject({ available_balance: '100.00', reserved_balance: '0.00' });
    expect(await totals(b.la)).toMatchObject({ credits_pending: '0', credits_posted: '0' });
    expect(await voidPending(pending.id, { idempotencyKey: k, reason: 'again' })).toEqual(voided);
    await expectLedgerError(voidPending(pending.id, { idempotencyKey: key(), reason: 'x' }), 'ALREADY_VOIDED');
    await expectLedgerError(postPending(pending.id, { idempotencyKey: key() }), 'ALREADY_VOIDED');
    // Ordinary entries are not two-phase; unknown ids are not found.
    const plain = await transfer(a.la, b.la, '1');
    await expectLedgerError(postPending(plain.id, { idempotencyKey: key() }), 'NOT_PENDING');
    await expectLedgerError(voidPending(plain.id, { idempotencyKey: key(), reason: 'x' }), 'NOT_PENDING');
    await expectLedgerError(postPending('je_unknown', { idempotencyKey: key() }), 'ENTRY_NOT_FOUND');
  });

  it('post and void racing on one pending entry: exactly one wins', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '10');
    for (let i = 0; i < 5; i++) {
      const p = await transfer(a.la, b.la, '1', { pending: true });
      const results = await Promise.allSettled([
        postPending(p.id, { idempotencyKey: key() }),
        voidPending(p.id, { idempotencyKey: key(), reason: 'race' }),
        postPending(p.id, { idempotencyKey: key() }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    }
    const t = await totals(a.la);
    expect(t.debits_pending).toBe('0');
  });

  it('a pending entry past its timeout voids itself (voidExpiredPending) and cannot be posted', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '100');
    const soon = await transfer(a.la, b.la, '30', { pending: true, pendingTimeoutSeconds: 1 });
    const later = await transfer(a.la, b.la, '20', { pending: true, pendingTimeoutSeconds: 1 });
    const lasting = await transfer(a.la, b.la, '10', { pending: true, pendingTimeoutSeconds: 3600 });
    expect(soon.pendingExpiresAt!.getTime()).toBeGreaterThan(soon.createdAt.getTime());
    expect((await getBalances(a.account.id)).balances[0].reserved_balance).toBe('60.00');
    await new Promise((r) => setTimeout(r, 1100));

    // Posting an expired entry voids it (and that void sticks), then reports PENDING_EXPIRED.
    await expectLedgerError(postPending(later.id, { idempotencyKey: key() }), 'PENDING_EXPIRED');
    expect(await getEntry(later.id)).toMatchObject({ status: 'voided', voidReason: 'expired' });
    await expectLedgerError(postPending(later.id, { idempotencyKey: key() }), 'PENDING_EXPIRED');

    expect(await voidExpiredPending()).toBe(1);
    expect(await getEntry(soon.id)).toMatchObject({ status: 'voided', voidReason: 'expired' });
    expect(await getEntry(lasting.id)).toMatchObject({ status: 'pending' });
    expect(await voidExpiredPending()).toBe(0);
    expect((await getBalances(a.account.id)).balances[0]).toMatchObject({ reserved_balance: '10.00', available_balance: '90.00' });

    const posted = await postPending(lasting.id, { idempotencyKey: key() });
    expect(posted.lines[0].balanceAfter).toBe('90.00');
    const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM journal_entries WHERE status = 'pending'`);
    expect(rows[0].n).toBe(0);
  });
});
