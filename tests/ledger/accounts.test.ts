import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountError,
  closeAccount,
  createAccount,
  ensureCustomerLedgerAccount,
  freezeAccount,
  getAccount,
  getBalances,
  listAccounts,
  unfreezeAccount,
} from '../../domain/accounts';
import { closePool, getPool } from '../../domain/db/pool';
import { DecimalMoney } from '../../domain/money/amount';
import { listLedgerAccounts, postPending, voidPending } from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, expectLedgerError, key, makeAccount, makeCustomer, makeUser, transfer } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

async function expectAccountError(p: Promise<unknown>, code: string) {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(AccountError);
  expect((err as AccountError).code).toBe(code);
}

async function events(accountId: string) {
  const { rows } = await getPool().query<{ type: string }>(
    `SELECT type FROM platform_events WHERE aggregate_type = 'account' AND aggregate_id = $1 AND type <> 'account.balance_updated' ORDER BY occurred_at, id`,
    [accountId],
  );
  return rows.map((r) => r.type);
}

describe('customer accounts', () => {
  it('creates, reads with tenant isolation and lists', async () => {
    const userId = await makeUser();
    const other = await makeUser();
    const acct = await createAccount({ userId, environment: 'sandbox', name: '  Savings pot ', type: 'savings', metadata: { goal: 'car' } });
    expect(acct).toMatchObject({ name: 'Savings pot', type: 'savings', status: 'active', metadata: { goal: 'car' }, userId });
    expect(acct.id).toMatch(/^acct_[0-9a-f]{32}$/);
    expect(await getAccount(userId, 'sandbox', acct.id)).toEqual(acct);
    expect(await getAccount(other, 'sandbox', acct.id)).toBeNull();
    expect(await getAccount(userId, 'production', acct.id)).toBeNull();
    expect(await getAccount(null, 'sandbox', acct.id)).toEqual(acct);
    await createAccount({ userId, environment: 'sandbox', name: 'Second' });
    await createAccount({ userId, environment: 'production', name: 'Live' });
    const page1 = await listAccounts(userId, 'sandbox', { page: 1, perPage: 1 });
    expect(page1.total).toBe(2);
    expect(page1.items.map((a) => a.name)).toEqual(['Savings pot']);
    expect((await listAccounts(userId, 'sandbox', { page: 2, perPage: 1 })).items.map((a) => a.name)).toEqual(['Second']);
    expect((await listAccounts(other, 'sandbox')).total).toBe(0);
    expect(await events(acct.id)).toEqual(['account.created']);
    await expectAccountError(createAccount({ userId, environment: 'sandbox', name: '' }), 'INVALID_ACCOUNT');
    await expectAccountError(createAccount({ userId, environment: 'sandbox', name: 'x', type: 'checking' as 'personal' }), 'INVALID_ACCOUNT');
    await expectAccountError(createAccount({ userId, environment: 'sandbox', name: 'x', metadata: [] as unknown as Record<string, unknown> }), 'INVALID_ACCOUNT');
  });

  it('opens one ledger account per asset lazily, idempotently and race-free', async () => {
    const acct = await makeAccount();
    const ids = await Promise.all(Array.from({ length: 10 }, () => ensureCustomerLedgerAccount(acct.id, 'EUR')));
    expect(new Set(ids).size).toBe(1);
    expect(await ensureCustomerLedgerAccount(acct.id, 'eur')).toBe(ids[0]);
    const las = await listLedgerAccounts({ environment: 'sandbox', accountId: acct.id });
    expect(las).toHaveLength(1);
    expect(las[0]).toMatchObject({ kind: 'customer', normalBalance: 'credit', noOverdraft: true, status: 'active', assetCode: 'EUR', userId: acct.userId, totalBalance: '0.00' });
    await expectAccountError(ensureCustomerLedgerAccount(acct.id, 'DOGE'), 'ASSET_NOT_FOUND');
    await expectAccountError(ensureCustomerLedgerAccount('acct_missing', 'USD'), 'ACCOUNT_NOT_FOUND');
  });

  it('reports balances per asset with a USD total', async () => {
    const { account, la } = await makeCustomer('USD');
    const btc = await ensureCustomerLedgerAccount(account.id, 'BTC');
    const other = await makeCustomer('USD');
    await deposit(la, 'USD', '1000.25');
    await deposit(btc, 'BTC', '0.5');
    await transfer(la, other.la, '200', { pending: true });
    const b = await getBalances(account.id);
    expect(b).toEqual({
      account_uuid: account.id,
      balances: [
        { asset_code: 'BTC', available_balance: '0.50000000', reserved_balance: '0.00000000', total_balance: '0.50000000' },
        { asset_code: 'USD', available_balance: '800.25', reserved_balance: '200.00', total_balance: '1000.25' },
      ],
      summary: { total_assets: 2, total_usd_equivalent: '48500.25' },
    });
  });

  it('freeze stops debits (credits still land), unfreeze restores, with events', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '100');
    const held = await transfer(a.la, b.la, '10', { pending: true });
    const frozen = await freezeAccount(a.account.id, { userId: a.userId, reason: 'compliance review' });
    expect(frozen.status).toBe('frozen');
    expect((await listLedgerAccounts({ environment: 'sandbox', accountId: a.account.id }))[0].status).toBe('frozen');
    await expectLedgerError(transfer(a.la, b.la, '1'), 'ACCOUNT_FROZEN');
    await expectLedgerError(postPending(held.id, { idempotencyKey: key() }), 'ACCOUNT_FROZEN');
    await deposit(a.la, 'USD', '5');
    // A ledger account opened while frozen is frozen too.
    const eur = await ensureCustomerLedgerAccount(a.account.id, 'EUR');
    await deposit(eur, 'EUR', '5');
    await expectLedgerError(
      transfer(eur, await ensureCustomerLedgerAccount(b.account.id, 'EUR'), '1'),
      'ACCOUNT_FROZEN',
    );
    expect((await freezeAccount(a.account.id)).status).toBe('frozen');
    await expectAccountError(freezeAccount(a.account.id, { userId: b.userId }), 'ACCOUNT_NOT_FOUND');
    const active = await unfreezeAccount(a.account.id, { userId: a.userId });
    expect(active.status).toBe('active');
    await postPending(held.id, { idempotencyKey: key() });
    await transfer(a.la, b.la, '1');
    expect(await events(a.account.id)).toEqual(['account.created', 'account.frozen', 'account.unfrozen']);
  });

  it('freeze racing with transfers: no debit lands after the freeze commits', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '1000');
    const attempts = Array.from({ length: 40 }, () => transfer(a.la, b.la, '1').then((e) => e, (e: unknown) => e));
    const [results] = await Promise.all([Promise.all(attempts), freezeAccount(a.account.id)]);
    const ok = results.filter((r) => !(r instanceof Error)).length;
    for (const r of results) {
      if (r instanceof Error) expect((r as { code?: string }).code).toBe('ACCOUNT_FROZEN');
    }
    // Every debit that succeeded is in the ledger, and nothing more gets through.
    const { rows } = await getPool().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger_lines WHERE ledger_account_id = $1 AND direction = 'debit'`,
      [a.la],
    );
    expect(rows[0].n).toBe(ok);
    expect((await getBalances(a.account.id)).balances[0].total_balance).toBe(new DecimalMoney('1000').minus(ok).toFixed(2));
    await expectLedgerError(transfer(a.la, b.la, '1'), 'ACCOUNT_FROZEN');
  });

  it('close requires zero balances and nothing pending; closed accounts take nothing', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '10');
    await expectAccountError(closeAccount(a.account.id), 'ACCOUNT_NOT_EMPTY');
    const p = await transfer(a.la, b.la, '10', { pending: true });
    await expectAccountError(closeAccount(a.account.id), 'ACCOUNT_HAS_PENDING');
    await expectAccountError(closeAccount(b.account.id), 'ACCOUNT_HAS_PENDING');
    await voidPending(p.id, { idempotencyKey: key(), reason: 'x' });
    await transfer(a.la, b.la, '10');
    const closed = await closeAccount(a.account.id, { userId: a.userId, reason: 'customer request' });
    expect(closed.status).toBe('closed');
    await expectLedgerError(deposit(a.la, 'USD', '1'), 'ACCOUNT_CLOSED');
    await expectLedgerError(transfer(b.la, a.la, '1'), 'ACCOUNT_CLOSED');
    const gbp = await ensureCustomerLedgerAccount(a.account.id, 'GBP');
    await expectLedgerError(deposit(gbp, 'GBP', '1'), 'ACCOUNT_CLOSED');
    await expectAccountError(freezeAccount(a.account.id), 'ACCOUNT_CLOSED');
    await expectAccountError(unfreezeAccount(a.account.id), 'ACCOUNT_CLOSED');
    expect(await events(a.account.id)).toEqual(['account.created', 'account.closed']);
    const { rows } = await getPool().query(`SELECT data FROM platform_events WHERE aggregate_id = $1 AND type = 'account.closed'`, [a.account.id]);
    expect(rows[0].data).toMatchObject({ account: { uuid: a.account.id, status: 'closed' }, reason: 'customer request' });
  });
});
