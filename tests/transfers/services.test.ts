import { describe, expect, it } from 'vitest';
import { createAssetCatalog } from '../../domain/assets';
import type { Queryable } from '../../domain/db/pool';
import { createLedgerService } from '../../domain/ledger';
import { AccountFacts } from '../../domain/transfers/checks';
import { FeeSchedules, feeFor } from '../../domain/transfers/fees';

/** A stand-in database: answers each query with `answer(sql)` and records the statements. */
function fakeDb(answer: (sql: string) => unknown[]) {
  const statements: string[] = [];
  const db = {
    statements,
    async query(q: string | { text: string }) {
      const sql = typeof q === 'string' ? q : q.text;
      statements.push(sql);
      return { rows: answer(sql), rowCount: 1 };
    },
  };
  return db as typeof db & Queryable;
}

const USD = { code: 'USD', name: 'US Dollar', type: 'fiat', precision: 2, is_active: true, max_amount: '1000000.00', max_balance: '100000000.00' };

describe('transfer fee formula (feeFor)', () => {
  const row = { fixed_fee: '0.25', rate_bps: 10, min_fee: '0.50', max_fee: '5.00' };
  it('is fixed plus basis points, clamped to min and max, rounded half-up at the precision', () => {
    expect(feeFor(row, '100.00', 2)).toBe('0.50'); // 0.25 + 0.10 under the minimum
    expect(feeFor(row, '1000.00', 2)).toBe('1.25');
    expect(feeFor(row, '1005.00', 2)).toBe('1.26'); // 1.255 rounds half-up
    expect(feeFor(row, '100000.00', 2)).toBe('5.00'); // over the maximum
    expect(feeFor({ ...row, max_fee: null }, '100000.00', 2)).toBe('100.25');
  });
  it('is zero at the asset precision without a schedule', () => {
    expect(feeFor(null, '10', 8)).toBe('0.00000000');
  });
});

describe('per-database state lives in the services, not in modules', () => {
  it('a fee schedule is read once per asset and kept by its own FeeSchedules', async () => {
    const a = fakeDb(() => [{ fixed_fee: '1', rate_bps: 0, min_fee: '0', max_fee: null }]);
    const b = fakeDb(() => []);
    const feesA = new FeeSchedules(a);
    const feesB = new FeeSchedules(b);
    expect(await feesA.transferFee('USD', '10.00', 2)).toBe('1.00');
    expect(await feesA.transferFee('USD', '20.00', 2)).toBe('1.00');
    expect(a.statements).toHaveLength(1);
    expect(await feesB.transferFee('USD', '10.00', 2)).toBe('0.00'); // the other database has no schedule
  });

  it('an asset catalog loads its database once (limit overrides first) and again after clear()', async () => {
    const db = fakeDb((sql) => (sql.includes('FROM assets') ? [USD] : []));
    const catalog = createAssetCatalog({ pool: db, config: { assetLimits: { USD: { maxAmount: '500' } } } });
    expect((await catalog.getAsset('usd'))?.precision).toBe(2);
    expect(await catalog.getAsset('XXX')).toBeNull();
    expect(db.statements.map((s) => s.trim().split(/\s+/)[0])).toEqual(['UPDATE', 'SELECT']);
    catalog.clear();
    await catalog.listAssets();
    expect(db.statements).toHaveLength(4);
    const other = createAssetCatalog({ pool: fakeDb(() => []), config: { assetLimits: {} } });
    expect(await other.getAsset('USD')).toBeNull(); // nothing shared between catalogs
  });

  it('a ledger service remembers committed system account ids, each service its own', async () => {
    const answer = (sql: string) => (sql.includes('AS mine') ? [{ mine: false }] : [{ id: 'la_fee' }]);
    const a = fakeDb(answer);
    const ledger = createLedgerService({ pool: a });
    expect(await ledger.systemAccount('sandbox', 'usd', 'fee_revenue', 'acct_1')).toBe('la_fee');
    expect(await ledger.systemAccount('sandbox', 'USD', 'fee_revenue', 'acct_1')).toBe('la_fee');
    expect(a.statements).toHaveLength(2); // the lookup and the commit check, once
    const b = fakeDb(answer);
    await createLedgerService({ pool: b }).systemAccount('sandbox', 'USD', 'fee_revenue', 'acct_1');
    expect(b.statements).toHaveLength(2);
  });

  it('a ledger service does not remember an id its own transaction created (it may roll back)', async () => {
    const db = fakeDb((sql) => (sql.includes('AS mine') ? [{ mine: true }] : [{ id: 'la_new' }]));
    const ledger = createLedgerService({ pool: db });
    await ledger.systemAccount('sandbox', 'USD', 'funding');
    await ledger.systemAccount('sandbox', 'USD', 'funding');
    expect(db.statements).toHaveLength(4);
  });

  it('account facts forget the oldest past their bound', () => {
    const facts = new AccountFacts(2);
    const fact = { userId: 'u', environment: 'sandbox' as const, ledgerAccountId: 'la', tenantId: null };
    facts.remember('a', 'USD', fact);
    facts.remember('b', 'USD', fact);
    facts.remember('c', 'USD', fact);
    expect(facts.get('a', 'USD')).toBeUndefined();
    expect(facts.get('b', 'USD')).toEqual(fact);
    expect(facts.get('c', 'EUR')).toBeUndefined();
  });
});
