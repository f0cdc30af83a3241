import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool } from '../../domain/db/pool';
import { DecimalMoney } from '../../domain/money/amount';
import {
  createInternalLedgerAccount,
  getLedgerAccount,
  listLedgerAccounts,
  postEntry,
  SYSTEM_ACCOUNT_SHARDS,
  setLedgerAccountStatus,
  shardFor,
  systemAccount,
  systemBalance,
  trialBalance,
} from '../../domain/ledger';
import { useTestDatabase } from '../helpers/db';
import { deposit, expectLedgerError, key, makeCustomer, transfer } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

describe('chart of accounts and trial balance', () => {
  it('has sharded system accounts per environment, asset and kind', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 512; i++) ids.add(await systemAccount('sandbox', 'USD', 'funding', `key-${i}`));
    expect(ids.size).toBe(SYSTEM_ACCOUNT_SHARDS);
    expect(await systemAccount('sandbox', 'USD', 'funding', 'abc')).toBe(await systemAccount('sandbox', 'usd', 'funding', 'abc'));
    expect(shardFor('abc')).toBe(shardFor('abc'));
    const prod = await systemAccount('production', 'USD', 'funding');
    expect(ids.has(prod)).toBe(false);
    const fee = await getLedgerAccount(await systemAccount('sandbox', 'EUR', 'fee_revenue'));
    expect(fee).toMatchObject({ kind: 'fee_revenue', normalBalance: 'credit', noOverdraft: false, assetCode: 'EUR', code: 'fee_revenue:0' });
    const funding = await listLedgerAccounts({ environment: 'sandbox', kind: 'funding', assetCode: 'BTC' });
    expect(funding.map((a) => a.code).sort()).toEqual(Array.from({ length: SYSTEM_ACCOUNT_SHARDS }, (_, i) => `funding:${i}`).sort());
    expect(funding[0]).toMatchObject({ normalBalance: 'debit', totalBalance: '0.00000000' });
  });

  it('sums shards, balances per asset, and reports a date range', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('GBP');
    const before = await systemBalance('sandbox', 'USD', 'funding');
    await Promise.all([1, 2, 3, 4, 5].map(() => deposit(a.la, 'USD', '10.00')));
    expect(await systemBalance('sandbox', 'USD', 'funding')).toBe(new DecimalMoney(before).plus('50').toFixed(2));
    const mid = new Date();
    await new Promise((r) => setTimeout(r, 20));
    await deposit(b.la, 'GBP', '7.50');
    const fee = await systemAccount('sandbox', 'USD', 'fee_revenue');
    await postEntry({ environment: 'sandbox', idempotencyKey: key(), type: 'fee', lines: [
      { accountId: a.la, direction: 'debit', amount: '0.99' }, { accountId: fee, direction: 'credit', amount: '0.99' }] });

    const all = await trialBalance({ environment: 'sandbox' });
    expect(all.balanced).toBe(true);
    const usd = all.assets.find((x) => x.assetCode === 'USD')!;
    expect(usd.totalDebits).toBe(usd.totalCredits);
    expect(all.accounts.find((x) => x.id === a.la)).toMatchObject({ kind: 'customer', credits: '50.00', debits: '0.99', balance: '49.01' });
    expect(all.accounts.find((x) => x.id === fee)).toMatchObject({ balance: '0.99' });

    const late = await trialBalance({ environment: 'sandbox', from: mid });
    expect(late.balanced).toBe(true);
    expect(late.assets).toEqual([
      { assetCode: 'GBP', totalDebits: '7.50', totalCredits: '7.50', balanced: true },
      { assetCode: 'USD', totalDebits: '0.99', totalCredits: '0.99', balanced: true },
    ]);
    const early = await trialBalance({ environment: 'sandbox', to: mid });
    expect(early.assets.find((x) => x.assetCode === 'USD')).toMatchObject({ totalCredits: '50.00' });
    expect((await trialBalance({ environment: 'production' })).assets).toEqual([]);
  });

  it('opens internal accounts other modules need, with status control', async () => {
    const acc = await createInternalLedgerAccount({ environment: 'sandbox', assetCode: 'USD', code: 'loans:receivable', name: 'Loans receivable', normalBalance: 'debit' });
    const again = await createInternalLedgerAccount({ environment: 'sandbox', assetCode: 'USD', code: 'loans:receivable', name: 'Loans receivable', normalBalance: 'debit' });
    expect(again.id).toBe(acc.id);
    expect(acc).toMatchObject({ kind: 'internal', noOverdraft: false, status: 'active' });
    const c = await makeCustomer('USD');
    await transfer(acc.id, c.la, '100');
    expect((await getLedgerAccount(acc.id))!.totalBalance).toBe('100.00');
    await setLedgerAccountStatus(acc.id, 'frozen');
    await expectLedgerError(transfer(acc.id, c.la, '1'), 'ACCOUNT_FROZEN');
    await transfer(c.la, acc.id, '1');
    await expectLedgerError(setLedgerAccountStatus(c.la, 'frozen'), 'ACCOUNT_NOT_FOUND');
    await expectLedgerError(
      createInternalLedgerAccount({ environment: 'sandbox', assetCode: 'XYZ', code: 'x', name: 'x', normalBalance: 'debit' }),
      'ASSET_NOT_FOUND',
    );
  });
});
