import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAccount, ensureCustomerLedgerAccount } from '../../domain/accounts';
import { bookChain, chainBalances, ensureChainLedgerAccount, findChainLedgerAccount } from '../../domain/chains/books';
import { getPool } from '../../domain/db/pool';
import { eventTypeInfo } from '../../domain/events/catalog';
import { postEntry, systemAccount, trialBalance } from '../../domain/ledger';
import { DomainError } from '../../domain/platform/errors';
import { createTestApp, type TestApp } from '../helpers/app';
import { key } from '../ledger/helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function openAccount(): Promise<string> {
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'crypto' } });
  return r.json().data.uuid;
}
const balances = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${id}/balances`, headers: t.headers })).json().data;

describe('chain books', () => {
  it('normalises the home chain to the "" book and refuses chains and tokens that do not fit', () => {
    expect(bookChain('USDC', 'ethereum')).toBe('');
    expect(bookChain('USDC', 'eip155:1')).toBe('');
    expect(bookChain('BTC', 'bitcoin')).toBe('');
    expect(bookChain('USDC', '')).toBe('');
    expect(bookChain('USDC', 'Arbitrum')).toBe('arbitrum');
    expect(() => bookChain('USDC', 'dogechain')).toThrow(DomainError);
    expect(() => bookChain('ETH', 'polygon')).toThrow(/ETH does not exist on polygon/);
    expect(() => bookChain('USD', 'base')).toThrow(/USD does not exist on base/);
  });

  it('a book opened on another chain is its own ledger account, once, and shows in the summed balances', async () => {
    const acct = await openAccount();
    const dep = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/deposit`, headers: t.headers, payload: { amount: '100.00', asset_code: 'USDC' } });
    expect(dep.statusCode).toBe(201);
    const c = await getPool().connect();
    let home: string, arb: string;
    try {
      home = await ensureChainLedgerAccount(c, acct, 'USDC', 'ethereum');
      arb = await ensureChainLedgerAccount(c, acct, 'USDC', 'arbitrum');
      // Concurrent and repeated opens give the same book.
      const again = await Promise.all([1, 2, 3].map(() => ensureChainLedgerAccount(getPool(), acct, 'USDC', 'eip155:42161')));
      expect(new Set(again)).toEqual(new Set([arb]));
    } finally {
      c.release();
    }
    expect(home).toBe(await ensureCustomerLedgerAccount(acct, 'USDC'));
    expect(arb).not.toBe(home);
    expect(await findChainLedgerAccount(acct, 'USDC', 'arbitrum')).toBe(arb);
    expect(await findChainLedgerAccount(acct, 'USDC', 'polygon')).toBeNull();
    const la = (await getPool().query('SELECT kind, no_overdraft, chain, name FROM ledger_accounts WHERE id = $1', [arb])).rows[0];
    expect(la).toMatchObject({ kind: 'customer', no_overdraft: true, chain: 'arbitrum', name: `${acct} USDC@arbitrum` });

    // Move 40 USDC from the home book to the arbitrum book (as a bridge would, minus the in-transit leg).
    const move = await postEntry({
      environment: 'sandbox',
      idempotencyKey: key('book-move'),
      type: 'transfer',
      lines: [
        { accountId: home, direction: 'debit', amount: '40' },
        { accountId: arb, direction: 'credit', amount: '40' },
      ],
    });
    expect(move.status).toBe('posted');
    // And 25 USDC arrive straight on polygon.
    const poly = await ensureChainLedgerAccount(getPool(), acct, 'USDC', 'polygon');
    const k = key('poly-dep');
    await postEntry({
      environment: 'sandbox',
      idempotencyKey: k,
      type: 'deposit',
      lines: [
        { accountId: await systemAccount('sandbox', 'USDC', 'funding', k), direction: 'debit', amount: '25' },
        { accountId: poly, direction: 'credit', amount: '25' },
      ],
    });

    const b = await balances(acct);
    expect(b.balances).toEqual([{ asset_code: 'USDC', available_balance: '125.000000', reserved_balance: '0.000000', total_balance: '125.000000' }]);
    expect(b.summary).toEqual({ total_assets: 1, total_usd_equivalent: '125.00' });
    const per = await chainBalances(acct);
    expect(per.map((x) => [x.chain, x.book, x.assetCode, x.totalBalance])).toEqual([
      ['arbitrum', 'arbitrum', 'USDC', '40.000000'],
      ['ethereum', '', 'USDC', '60.000000'],
      ['polygon', 'polygon', 'USDC', '25.000000'],
    ]);
    // A book cannot go below zero: the ledger refuses overdrawing the polygon book even though the account holds more USDC.
    await expect(
      postEntry({ environment: 'sandbox', idempotencyKey: key('over'), type: 'transfer', lines: [{ accountId: poly, direction: 'debit', amount: '30' }, { accountId: home, direction: 'credit', amount: '30' }] }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    // A pending debit on a book shows as reserved in the summed balances.
    await postEntry({ environment: 'sandbox', idempotencyKey: key('hold'), type: 'transfer', pending: true, lines: [{ accountId: arb, direction: 'debit', amount: '10' }, { accountId: home, direction: 'credit', amount: '10' }] });
    expect((await balances(acct)).balances[0]).toMatchObject({ available_balance: '115.000000', reserved_balance: '10.000000', total_balance: '125.000000' });
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);

    // balance_updated events carry the book's chain and match the catalog's schema.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(eventTypeInfo('account.balance_updated')!.data_schema);
    const { rows } = await getPool().query<{ data: Record<string, unknown> }>(`SELECT data FROM platform_events WHERE type = 'account.balance_updated' AND aggregate_id = $1`, [acct]);
    for (const r of rows) expect(validate(r.data), ajv.errorsText(validate.errors)).toBe(true);
    expect(new Set(rows.map((r) => r.data.chain))).toEqual(new Set(['', 'arbitrum', 'polygon']));
    expect(rows.find((r) => r.data.entry_id === move.id && r.data.chain === 'arbitrum')?.data).toMatchObject({ total_balance: '40.000000', ledger_account_id: arb });
  });

  it('transfers, deposits and withdrawals keep using the home book; closing an account checks every book', async () => {
    const a = await openAccount();
    const b = await openAccount();
    await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${a}/deposit`, headers: t.headers, payload: { amount: '1.5', asset_code: 'ETH' } });
    const opt = await ensureChainLedgerAccount(getPool(), a, 'ETH', 'optimism');
    const home = await ensureCustomerLedgerAccount(a, 'ETH');
    await postEntry({ environment: 'sandbox', idempotencyKey: key('to-op'), type: 'transfer', lines: [{ accountId: home, direction: 'debit', amount: '1' }, { accountId: opt, direction: 'credit', amount: '1' }] });
    // Only 0.5 ETH is on the home book: a transfer of 1 ETH is refused although the account holds 1.5.
    const tooMuch = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: a, to_account: b, amount: '1', asset_code: 'ETH', workflow_enabled: false } });
    expect(tooMuch.statusCode).toBe(422);
    expect(tooMuch.json().errors[0].code).toBe('INSUFFICIENT_FUNDS');
    const ok = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: a, to_account: b, amount: '0.25', asset_code: 'ETH', workflow_enabled: false } });
    expect(ok.statusCode).toBe(201);
    const fromBooks = (await getPool().query(`SELECT chain, round(credits_posted - debits_posted, 18)::text AS bal FROM ledger_accounts WHERE account_id = $1 AND asset_code = 'ETH' ORDER BY chain`, [a])).rows;
    expect(fromBooks.map((r) => r.chain)).toEqual(['', 'optimism']);
    expect(fromBooks[1].bal).toBe('1.000000000000000000');
    const w = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${a}/withdraw`, headers: t.headers, payload: { amount: '0.1', asset_code: 'ETH' } });
    expect(w.statusCode).toBe(201);

    // Close: the optimism book still holds 1 ETH, reported once per asset.
    const c = await openAccount();
    const cOpt = await ensureChainLedgerAccount(getPool(), c, 'USDT', 'base');
    await ensureChainLedgerAccount(getPool(), c, 'USDT', 'ethereum');
    const k = key('c-dep');
    await postEntry({ environment: 'sandbox', idempotencyKey: k, type: 'deposit', lines: [{ accountId: await systemAccount('sandbox', 'USDT', 'funding', k), direction: 'debit', amount: '3' }, { accountId: cOpt, direction: 'credit', amount: '3' }] });
    await expect(closeAccount(c)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_EMPTY', details: { assets: ['USDT'] } });
  });
});
