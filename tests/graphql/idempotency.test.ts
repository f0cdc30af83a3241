/**
 * An Idempotency-Key on a GraphQL request covers the whole document (the answer is replayed for a
 * retry), but each money mutation in it is its own operation: two deposits under one key are two
 * deposits, and the same document run again after a crash makes neither twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { crashedAfterCommit, newIdempotencyKey } from '../helpers/idempotency';
import { balance, openFundedAccount } from '../transfers/helpers';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

const graphql = (key: string, query: string, variables: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/graphql', headers: { ...t.headers, 'idempotency-key': key }, payload: { query, variables } });

describe('GraphQL: several money mutations under one Idempotency-Key', () => {
  it('two deposits in one document are two deposits; a retry after a crash adds neither again', async () => {
    const account = await openFundedAccount(t, t.headers, '0');
    const key = newIdempotencyKey();
    const doc = `mutation($a: ID!) {
      one: deposit(accountId: $a, amount: "1.25", assetCode: "USD") { entryId }
      two: deposit(accountId: $a, amount: "2.50", assetCode: "USD") { entryId }
    }`;
    const first = await graphql(key, doc, { a: account });
    expect(first.json().errors, first.body).toBeUndefined();
    const { one, two } = first.json().data;
    expect(one.entryId).not.toBe(two.entryId);
    expect(await balance(t, t.headers, account)).toMatchObject({ total_balance: '3.75' });

    await crashedAfterCommit(key);
    const retry = await graphql(key, doc, { a: account });
    expect(retry.json().errors, retry.body).toBeUndefined();
    expect(retry.json().data).toEqual({ one, two });
    expect(await balance(t, t.headers, account)).toMatchObject({ total_balance: '3.75' });
  });
});
