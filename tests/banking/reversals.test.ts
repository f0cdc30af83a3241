/**
 * Who may reverse what (issue 13, item 1; docs/ledger.md "Reversals"): every transaction kind ×
 * {customer who owns it, operator}. A reversal is only for movements that stayed inside the
 * platform's ledger (internal transfers, operator manual entries); everything that left or entered
 * the platform is 422 NOT_REVERSIBLE for everyone, and the balances do not move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCustomerLedgerAccount } from '../../domain/accounts';
import { getPool } from '../../domain/db/pool';
import { getEntry, systemAccount, trialBalance } from '../../domain/ledger';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount } from '../transfers/helpers';
import { custodyAddress, book, fundBook, openAccount, waitSwap } from '../defi/helpers';

let t: TestApp;
let w: TestWorker;
let bob: TestUser;
let operator: TestUser;
let prodAda: TestUser;
let prodOperator: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  bob = await createTestUser();
  operator = await createTestUser({ admin: true });
  prodAda = await createTestUser({ environment: 'production' });
  prodOperator = await createTestUser({ environment: 'production', admin: true });
}, 120_000);
afterAll(async () => {
  delete process.env.REVERSAL_WINDOW_DAYS;
  await w?.stop();
  await t?.close();
});

type Headers = Record<string, string>;
const reverse = (transaction_id: string, headers: Headers, extra: Record<string, unknown> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/transactions/reverse', headers, payload: { transaction_id, reason: 'test', ...extra } });

/** The customer transaction (ledger line) of `entryId` on `accountId` (first customer line when omitted). */
async function txnOf(entryId: string, accountId?: string, txnType?: string): Promise<string> {
  const { rows } = await getPool().query<{ id: string }>(
    `SELECT id FROM ledger_lines WHERE entry_id = $1 AND account_id IS NOT NULL AND ($2::text IS NULL OR account_id = $2)
       AND ($3::text IS NULL OR txn_type = $3) ORDER BY line_no LIMIT 1`,
    [entryId, accountId ?? null, txnType ?? null],
  );
  expect(rows[0], `a customer line of ${entryId}`).toBeTruthy();
  return rows[0].id;
}

async function transfer(from: string, to: string, amount: string, headers: Headers = t.headers): Promise<{ uuid: string; entryId: string }> {
  const r = await t.app.inject({ method: 'POST', url: '/api/transfers', headers, payload: { from_account: from, to_account: to, amount, currency: 'USD' } });
  expect(r.statusCode, r.body).toBe(201);
  const uuid = r.json().data.uuid as string;
  const { rows } = await getPool().query<{ entry_id: string }>('SELECT entry_id FROM transfers WHERE id = $1', [uuid]);
  return { uuid, entryId: rows[0].entry_id };
}

/** Both roles are refused with NOT_REVERSIBLE and the detail names `process`; nothing moves. */
async function expectNotReversible(txnId: string, customer: Headers, op: Headers, process: RegExp, watch: () => Promise<unknown>) {
  const before = await watch();
  for (const [who, headers, extra] of [
    ['customer', customer, {}],
    ['operator', op, {}],
    ['operator (force)', op, { force: true }],
  ] as const) {
    const r = await reverse(txnId, headers, extra);
    expect(r.statusCode, `${who}: ${r.body}`).toBe(422);
    const err = r.json().errors[0];
    expect(err).toMatchObject({ code: 'NOT_REVERSIBLE', source: { pointer: '/transaction_id' } });
    expect(err.detail).toMatch(process);
  }
  expect(await watch()).toEqual(before);
}

const codeOf = (r: { json(): any }) => r.json().errors?.[0]?.code;

describe('internal transfers (stayed inside the ledger)', () => {
  it('recipient returns it (201, amount and fee back); sender and fee line are 403; own-to-own is allowed', async () => {
    const ada = await openFundedAccount(t, t.headers, '100.00');
    const bobAcct = await openFundedAccount(t, bob.headers, '0');
    const tr = await transfer(ada, bobAcct, '40.00');

    // As sender: neither the transfer line nor its fee line lets Ada take money back from Bob.
    const out = await reverse(await txnOf(tr.entryId, ada, 'transfer_out'), t.headers);
    expect(out.statusCode).toBe(403);
    expect(codeOf(out)).toBe('REVERSAL_NOT_PERMITTED');
    const fee = await reverse(await txnOf(tr.entryId, ada, 'fee'), t.headers);
    expect(fee.statusCode).toBe(403);
    expect(codeOf(fee)).toBe('REVERSAL_NOT_PERMITTED');
    // Another customer's transaction does not exist for Bob.
    expect((await reverse(await txnOf(tr.entryId, ada, 'transfer_out'), bob.headers)).statusCode).toBe(404);

    // As recipient: 201, the whole entry (amount and fee) is reversed.
    const rev = await reverse(await txnOf(tr.entryId, bobAcct), bob.headers);
    expect(rev.statusCode, rev.body).toBe(201);
    expect(rev.json().data).toMatchObject({ original_entry_id: tr.entryId, transfer_uuid: tr.uuid });
    expect((await balance(t, t.headers, ada)).total_balance).toBe('100.00');
    expect((await balance(t, bob.headers, bobAcct)).total_balance).toBe('0.00');
    // Once only, and a reversal is not itself reversible.
    const again = await reverse(await txnOf(tr.entryId, bobAcct), bob.headers);
    expect([again.statusCode, codeOf(again)]).toEqual([422, 'ALREADY_REVERSED']);
    const revOfRev = await reverse(await txnOf(rev.json().data.reversal_entry_id, ada), operator.headers);
    expect([revOfRev.statusCode, codeOf(revOfRev)]).toEqual([422, 'CANNOT_REVERSE_REVERSAL']);

    // Own-to-own: both sides are Ada's.
    const ada2 = await openFundedAccount(t, t.headers, '0');
    const own = await transfer(ada, ada2, '10.00');
    const ownRev = await reverse(await txnOf(own.entryId, ada, 'transfer_out'), t.headers);
    expect(ownRev.statusCode, ownRev.body).toBe(201);
    expect((await balance(t, t.headers, ada2)).total_balance).toBe('0.00');
    expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
  });

  it('operators reverse any internal transfer (including the fee line), customers only within REVERSAL_WINDOW_DAYS', async () => {
    const ada = await openFundedAccount(t, t.headers, '100.00');
    const bobAcct = await openFundedAccount(t, bob.headers, '0');
    const a = await transfer(ada, bobAcct, '20.00');
    const b = await transfer(ada, bobAcct, '30.00');

    // Operator, on the sender's fee line: the whole transfer comes back.
    const byOp = await reverse(await txnOf(a.entryId, ada, 'fee'), operator.headers);
    expect(byOp.statusCode, byOp.body).toBe(201);
    expect(byOp.json().data.transfer_uuid).toBe(a.uuid);
    expect((await balance(t, bob.headers, bobAcct)).total_balance).toBe('30.00');

    // Past the window the recipient is refused; the operator is not bound by it.
    process.env.REVERSAL_WINDOW_DAYS = '0';
    try {
      const late = await reverse(await txnOf(b.entryId, bobAcct), bob.headers);
      expect([late.statusCode, codeOf(late)], late.body).toEqual([422, 'REVERSAL_WINDOW_EXPIRED']);
      expect((await balance(t, bob.headers, bobAcct)).total_balance).toBe('30.00');
      const op = await reverse(await txnOf(b.entryId, bobAcct), operator.headers);
      expect(op.statusCode, op.body).toBe(201);
    } finally {
      delete process.env.REVERSAL_WINDOW_DAYS;
    }
    expect((await balance(t, bob.headers, bobAcct)).total_balance).toBe('0.00');
    expect((await balance(t, t.headers, ada)).total_balance).toBe('100.00');

    // force is for operators only.
    const c = await transfer(ada, bobAcct, '5.00');
    const forced = await reverse(await txnOf(c.entryId, bobAcct), bob.headers, { force: true });
    expect([forced.statusCode, codeOf(forced)]).toEqual([403, 'FORCE_REQUIRES_OPERATOR']);
  });
});

describe('operator manual ledger entries', () => {
  it('only an operator reverses a manual entry; the customer it touches is told to ask an operator', async () => {
    const ada = await openFundedAccount(t, t.headers, '0');
    const adaLa = await ensureCustomerLedgerAccount(ada, 'USD');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'manual-test');
    const m = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ledger/entries',
      headers: operator.headers,
      payload: { description: 'goodwill credit', lines: [{ account_id: suspense, direction: 'debit', amount: '15.00' }, { account_id: adaLa, direction: 'credit', amount: '15.00' }] },
    });
    expect(m.statusCode, m.body).toBe(201);
    const txn = await txnOf(m.json().data.id, ada);
    const byCustomer = await reverse(txn, t.headers);
    expect([byCustomer.statusCode, codeOf(byCustomer)]).toEqual([403, 'REVERSAL_NOT_PERMITTED']);
    expect((await balance(t, t.headers, ada)).total_balance).toBe('15.00');
    const byOp = await reverse(txn, operator.headers);
    expect(byOp.statusCode, byOp.body).toBe(201);
    expect((await balance(t, t.headers, ada)).total_balance).toBe('0.00');
  });
});

describe('movements that entered or left the platform: NOT_REVERSIBLE for everyone', () => {
  it('sandbox deposit and withdrawal', async () => {
    const ada = await openAccount(t, t.headers);
    const dep = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${ada}/deposit`, headers: t.headers, payload: { amount: '50.00', asset_code: 'USD' } });
    expect(dep.statusCode).toBe(201);
    await expectNotReversible(dep.json().data.transaction.uuid, t.headers, operator.headers, /withdrawal/i, () => balance(t, t.headers, ada));
    const wd = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${ada}/withdraw`, headers: t.headers, payload: { amount: '20.00', asset_code: 'USD' } });
    expect(wd.statusCode).toBe(201);
    await expectNotReversible(wd.json().data.transaction.uuid, t.headers, operator.headers, /deposit/i, () => balance(t, t.headers, ada));
    expect((await balance(t, t.headers, ada)).total_balance).toBe('30.00');
  });

  it('production: deposit 100, withdraw 60 posted by the operator; reversing it is refused, so 100 more cannot be withdrawn', async () => {
    const post = (entryId: string) => t.app.inject({ method: 'POST', url: `/api/v1/ledger/entries/${entryId}/post`, headers: prodOperator.headers, payload: {} });
    const acct = (await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: prodAda.headers, payload: { name: 'prod' } })).json().data.uuid as string;
    const dep = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/deposit`, headers: prodAda.headers, payload: { amount: '100.00', asset_code: 'USD' } });
    expect(dep.statusCode).toBe(201);
    expect((await post(dep.json().data.entry_id)).statusCode).toBe(200);
    const wd = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/withdraw`, headers: prodAda.headers, payload: { amount: '60.00', asset_code: 'USD' } });
    expect(wd.statusCode).toBe(201);
    expect((await post(wd.json().data.entry_id)).statusCode).toBe(200);
    expect((await balance(t, prodAda.headers, acct)).total_balance).toBe('40.00');

    await expectNotReversible(wd.json().data.transaction.uuid, prodAda.headers, prodOperator.headers, /deposit/i, () => balance(t, prodAda.headers, acct));
    await expectNotReversible(dep.json().data.transaction.uuid, prodAda.headers, prodOperator.headers, /withdrawal/i, () => balance(t, prodAda.headers, acct));
    expect((await balance(t, prodAda.headers, acct)).total_balance).toBe('40.00');
    const again = await t.app.inject({ method: 'POST', url: `/api/v2/accounts/${acct}/withdraw`, headers: prodAda.headers, payload: { amount: '100.00', asset_code: 'USD' } });
    expect([again.statusCode, codeOf(again)]).toEqual([422, 'INSUFFICIENT_FUNDS']);
  });

  it('an RTP payment (sandbox rail): undone only by a pacs.004 return', async () => {
    const acct = await openFundedAccount(t, t.headers, '100.00');
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/payment-rails/payments',
      headers: t.headers,
      payload: { account_id: acct, amount: '10.00', currency: 'USD', rail: 'rtp', creditor_account: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' } },
    });
    expect(r.statusCode, r.body).toBe(201);
    await (await getTemporalClient()).workflow.getHandle(r.json().data.workflow_id).result();
    const { rows } = await getPool().query('SELECT status, reservation_entry_id FROM rail_payments WHERE id = $1', [r.json().data.id]);
    expect(rows[0].status).toBe('completed');
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('posted');
    await expectNotReversible(await txnOf(rows[0].reservation_entry_id, acct), t.headers, operator.headers, /pacs\.004/, () => balance(t, t.headers, acct));
    expect((await balance(t, t.headers, acct)).total_balance).toBe('90.00');
  });

  it('an Interledger payment (entry type "transfer", but no transfers row): not an internal transfer', async () => {
    const acct = await openFundedAccount(t, t.headers, '200.00');
    const q = await t.app.inject({ method: 'POST', url: '/api/v1/interledger/quotes', headers: t.headers, payload: { send_amount: '100.00', send_currency: 'USD', receive_currency: 'EUR', receiver: 'https://wallet.example/bob' } });
    expect(q.statusCode, q.body).toBe(201);
    const p = await t.app.inject({ method: 'POST', url: '/api/v1/interledger/payments', headers: t.headers, payload: { quote_id: q.json().data.id, account_id: acct } });
    expect(p.statusCode, p.body).toBe(201);
    await (await getTemporalClient()).workflow.getHandle(p.json().data.workflow_id).result();
    const { rows } = await getPool().query('SELECT status, entry_id FROM ilp_payments WHERE id = $1', [p.json().data.id]);
    expect(rows[0].status).toBe('completed');
    expect((await getEntry(rows[0].entry_id))!.type).toBe('transfer');
    await expectNotReversible(await txnOf(rows[0].entry_id, acct), t.headers, operator.headers, /Interledger/, () => balance(t, t.headers, acct));
    expect((await balance(t, t.headers, acct)).total_balance).toBe('100.00');
  });

  it('a DEX swap: undone only by a new swap back', async () => {
    const acct = await openAccount(t, t.headers);
    await fundBook(acct, 'USDC', 'arbitrum', '1000.000000');
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/defi/swap/execute',
      headers: t.headers,
      payload: { from_token: 'USDC', to_token: 'WETH', amount: '100', chain: 'arbitrum', slippage_bps: 500, wallet_address: custodyAddress(acct, 'arbitrum'), account_id: acct },
    });
    expect(r.statusCode, r.body).toBe(201);
    expect((await waitSwap(t, t.headers, r.json().data.swap_id)).status).toBe('completed');
    const { rows } = await getPool().query('SELECT reservation_entry_id, settlement_entry_id FROM defi_swaps WHERE id = $1', [r.json().data.swap_id]);
    const watch = async () => [await book(acct, 'USDC', 'arbitrum'), await book(acct, 'WETH', 'arbitrum')];
    for (const entryId of [rows[0].reservation_entry_id, rows[0].settlement_entry_id].filter(Boolean)) {
      if ((await getEntry(entryId))!.status !== 'posted') continue;
      await expectNotReversible(await txnOf(entryId), t.headers, operator.headers, /swap/i, watch);
    }
  });

  it('an entry no known process made (deny by default): NOT_REVERSIBLE', async () => {
    const acct = await openAccount(t, t.headers);
    // A chain-book credit posted straight on the ledger, linked to no record of any kind.
    await fundBook(acct, 'USDC', 'arbitrum', '10.000000');
    const { rows } = await getPool().query<{ entry_id: string }>(
      `SELECT l.entry_id FROM ledger_lines l WHERE l.account_id = $1 ORDER BY l.seq DESC LIMIT 1`,
      [acct],
    );
    await expectNotReversible(await txnOf(rows[0].entry_id, acct), t.headers, operator.headers, /cannot be reversed/i, () => book(acct, 'USDC', 'arbitrum'));
  });
});
