import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemAccount } from '../../domain/ledger';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let op: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  op = await createTestUser({ admin: true });
});
afterAll(async () => t.close());

const rest = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

const POST_ENTRY = /* GraphQL */ `
  mutation ($input: LedgerEntryInput!) {
    postLedgerEntry(input: $input) { id type status twoPhase description reference lines { id accountId assetCode direction amount balanceAfter status } }
  }
`;

async function ledgerAccounts(headers: Record<string, string>, kind?: string) {
  return (await gqlOk(t, `query ($kind: String) { ledgerAccounts(perPage: 100, kind: $kind) { data { id kind assetCode accountId totalBalance availableBalance reservedBalance debitsPosted creditsPosted } paginatorInfo { total } } }`, { kind }, headers)).ledgerAccounts;
}

describe('ledger over GraphQL', () => {
  it("ledgerAccounts equals GET /ledger/accounts: a customer sees only their own accounts' ledger accounts", async () => {
    const acct = await openFundedAccount(t, t.headers, '125.00');
    const other = await createTestUser();
    await openFundedAccount(t, other.headers, '7.00');
    const r = (await rest('GET', '/api/v1/ledger/accounts', t.headers)).json();
    const g = await ledgerAccounts(t.headers);
    expect(g.paginatorInfo.total).toBe(r.meta.total);
    expect(g.data).toEqual(
      r.data.map((a: Record<string, unknown>) => ({
        id: a.id,
        kind: a.kind,
        assetCode: a.asset_code,
        accountId: a.account_uuid,
        totalBalance: a.total_balance,
        availableBalance: a.available_balance,
        reservedBalance: a.reserved_balance,
        debitsPosted: a.debits_posted,
        creditsPosted: a.credits_posted,
      })),
    );
    expect(g.data.map((a: { accountId: string }) => a.accountId)).toEqual([acct]);
    expect(g.data[0].totalBalance).toBe('125.00');
  });

  it('an operator posts a pending manual entry, reads it as REST does, and posts it; REST sees the posting', async () => {
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'gql-ledger');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'gql-ledger');
    const made = (
      await gqlOk(
        t,
        POST_ENTRY,
        { input: { description: 'gql adjustment', pending: true, lines: [{ accountId: funding, direction: 'debit', amount: '12.50' }, { accountId: suspense, direction: 'credit', amount: '12.50' }] } },
        op.headers,
      )
    ).postLedgerEntry;
    expect(made).toMatchObject({ type: 'manual', status: 'pending', twoPhase: true, description: 'gql adjustment' });

    const viaRest = (await rest('GET', `/api/v1/ledger/entries/${made.id}`, op.headers)).json().data;
    const read = (await gqlOk(t, `query ($id: ID!) { ledgerEntry(id: $id) { id type status twoPhase description metadata createdAt lines { id accountId direction amount status } } }`, { id: made.id }, op.headers)).ledgerEntry;
    expect(read).toEqual({
      id: viaRest.id,
      type: viaRest.type,
      status: viaRest.status,
      twoPhase: viaRest.two_phase,
      description: viaRest.description,
      metadata: viaRest.metadata,
      createdAt: viaRest.created_at,
      lines: viaRest.lines.map((l: Record<string, unknown>) => ({ id: l.id, accountId: l.account_id, direction: l.direction, amount: l.amount, status: l.status })),
    });

    const posted = (await gqlOk(t, `mutation ($id: ID!) { postPendingLedgerEntry(id: $id) { id status postedAt } }`, { id: made.id }, op.headers)).postPendingLedgerEntry;
    expect(posted).toMatchObject({ id: made.id, status: 'posted' });
    expect((await rest('GET', `/api/v1/ledger/entries/${made.id}`, op.headers)).json().data.status).toBe('posted');
    // Each pending entry is settled at most once: voiding it now is the REST refusal.
    const voidRest = (await rest('POST', `/api/v1/ledger/entries/${made.id}/void`, op.headers, {})).json().errors[0];
    const r = await gqlRefused(t, `mutation ($id: ID!) { voidPendingLedgerEntry(id: $id) { id } }`, voidRest.code, Number(voidRest.status), { id: made.id }, op.headers);
    expect(r.data).toBeNull();
  });

  it('the trial balance equals GET /ledger/trial-balance; from after to is the REST 422', async () => {
    const viaRest = (await rest('GET', '/api/v1/ledger/trial-balance', op.headers)).json().data;
    const g = (await gqlOk(t, `{ trialBalance { environment balanced assets { assetCode totalDebits totalCredits balanced } } }`, undefined, op.headers)).trialBalance;
    expect(g).toEqual({
      environment: viaRest.environment,
      balanced: viaRest.balanced,
      assets: viaRest.assets.map((a: Record<string, unknown>) => ({ assetCode: a.asset_code, totalDebits: a.total_debits, totalCredits: a.total_credits, balanced: a.balanced })),
    });
    const bad = await gqlRefused(t, `{ trialBalance(from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z") { balanced } }`, 'VALIDATION_ERROR', 422, undefined, op.headers);
    expect(bad.errors![0].message).toBe('from must not be after to');
  });

  it('refusals carry the REST codes: too many decimals, an unbalanced entry, an unknown entry, a customer, a read-only key', async () => {
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'gql-ledger-bad');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'gql-ledger-bad');
    const creditsOf = async () => (await ledgerAccounts(op.headers, 'suspense')).data.find((a: { id: string }) => a.id === suspense)?.creditsPosted ?? null;
    const before = await creditsOf();
    const lines = (a: string, b: string) => [{ accountId: funding, direction: 'debit', amount: a }, { accountId: suspense, direction: 'credit', amount: b }];

    const restDecimals = (await rest('POST', '/api/v1/ledger/entries', op.headers, { lines: [{ account_id: funding, direction: 'debit', amount: '1.001' }, { account_id: suspense, direction: 'credit', amount: '1.001' }] })).json().errors[0];
    expect(restDecimals).toMatchObject({ code: 'AMOUNT_PRECISION', status: '422' });
    const decimals = await gqlRefused(t, POST_ENTRY, 'AMOUNT_PRECISION', 422, { input: { lines: lines('1.001', '1.001') } }, op.headers);
    expect(decimals.errors![0].extensions.pointer).toBe('/lines/0/amount');
    const restUnbalanced = (await rest('POST', '/api/v1/ledger/entries', op.headers, { lines: [{ account_id: funding, direction: 'debit', amount: '2.00' }, { account_id: suspense, direction: 'credit', amount: '1.00' }] })).json().errors[0];
    await gqlRefused(t, POST_ENTRY, restUnbalanced.code, Number(restUnbalanced.status), { input: { lines: lines('2.00', '1.00') } }, op.headers);
    // The REST body schema holds for GraphQL too: one line is not an entry.
    await gqlRefused(t, POST_ENTRY, 'VALIDATION_ERROR', 422, { input: { lines: lines('1.00', '1.00').slice(0, 1) } }, op.headers);

    const restMissing = await rest('GET', '/api/v1/ledger/entries/ent_nope', op.headers);
    expect(restMissing.statusCode).toBe(404);
    await gqlRefused(t, `{ ledgerEntry(id: "ent_nope") { id } }`, restMissing.json().errors[0].code, 404, undefined, op.headers);

    // Operator-only: a customer is ADMIN_REQUIRED, and nothing is posted.
    await gqlRefused(t, POST_ENTRY, 'ADMIN_REQUIRED', 403, { input: { lines: lines('1.00', '1.00') } });
    await gqlRefused(t, `{ trialBalance { balanced } }`, 'ADMIN_REQUIRED', 403);
    const readOnlyOp = await createTestUser({ admin: true, permissions: ['read'] });
    await gqlRefused(t, POST_ENTRY, 'INSUFFICIENT_PERMISSIONS', 403, { input: { lines: lines('1.00', '1.00') } }, readOnlyOp.headers);
    expect(await creditsOf()).toBe(before);
  });

  it("another environment's entry is the REST not-found", async () => {
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'gql-ledger-env');
    const suspense = await systemAccount('sandbox', 'USD', 'suspense', 'gql-ledger-env');
    const made = (await gqlOk(t, POST_ENTRY, { input: { lines: [{ accountId: funding, direction: 'debit', amount: '1.00' }, { accountId: suspense, direction: 'credit', amount: '1.00' }] } }, op.headers)).postLedgerEntry;
    const prodOp = await createTestUser({ admin: true, environment: 'production' });
    const viaRest = await rest('GET', `/api/v1/ledger/entries/${made.id}`, prodOp.headers);
    expect(viaRest.statusCode).toBe(404);
    const r = await gql(t, `query ($id: ID!) { ledgerEntry(id: $id) { id } }`, { id: made.id }, prodOp.headers);
    expect(r.errors?.[0]?.extensions).toMatchObject({ code: viaRest.json().errors[0].code, status: 404 });
  });
});
