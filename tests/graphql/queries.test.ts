/**
 * The GraphQL endpoint itself: errors with the REST codes, credentials and permissions, pagination
 * edge cases, the N+1 query count, depth and cost limits (introspection exempt), GET, and the
 * offline playground.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MAX_COST, MAX_DEPTH } from '../../api/graphql/limits';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let acct: string;

beforeAll(async () => {
  t = await createTestApp();
  acct = (await gqlOk(t, 'mutation { createAccount(input: { name: "main" }) { id } }')).createAccount.id;
  // 60 postings: 60 deposits of 1.00.
  for (let i = 0; i < 60; i++) await gqlOk(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "1.00", assetCode: "USD") { entryId } }', { a: acct });
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('answers', () => {
  it('the same account as REST, with its identifiers, balances and the caller', async () => {
    const data = await gqlOk(t, 'query($id: ID!) { me { userId environment permissions kind } account(id: $id) { id name type status createdAt identifiers { iban } balances { assetCode available reserved total asset { code precision } } } }', { id: acct });
    const rest = (await t.app.inject({ method: 'GET', url: `/api/v2/accounts/${acct}`, headers: t.headers })).json().data;
    expect(data.account).toMatchObject({ id: rest.uuid, name: rest.name, type: rest.type, status: rest.status, createdAt: rest.created_at, identifiers: rest.identifiers });
    expect(data.account.identifiers.iban).toMatch(/^DE\d{20}$/);
    expect((await gqlOk(t, '{ accounts { data { id identifiers { iban } } } }')).accounts.data).toContainEqual({ id: acct, identifiers: rest.identifiers });
    expect(data.account.balances).toEqual([{ assetCode: 'USD', available: '60.00', reserved: '0.00', total: '60.00', asset: { code: 'USD', precision: 2 } }]);
    expect(data.me).toEqual({ userId: t.user.userId, environment: 'sandbox', permissions: ['read', 'write', 'delete'], kind: 'api_key' });
  });

  it('errors carry the REST code and status; bad documents are a 400', async () => {
    // Twice: the second run of a document is compiled (graphql-jit) and must map errors the same way.
    for (let i = 0; i < 3; i++) await gqlRefused(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: "1.001", assetCode: "USD") { entryId } }', 'AMOUNT_PRECISION', 422, { a: acct });
    for (let i = 0; i < 3; i++) await gqlRefused(t, '{ account(id: "acct_nope") { id name } }', 'NOT_FOUND', 404);
    // A float is never money: the Decimal scalar refuses it before anything runs.
    const float = await gql(t, 'mutation($a: ID!) { deposit(accountId: $a, amount: 1.5, assetCode: "USD") { entryId } }', { a: acct });
    expect(float.status).toBe(400);
    await gqlRefused(t, '{ account(id: "acct_nope") { id } }', 'NOT_FOUND', 404);
    const bad = await gql(t, '{ nothing }');
    expect(bad.status).toBe(400);
    expect(bad.errors![0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', status: 400 });
    const syntax = await gql(t, '{ me { ');
    expect(syntax.status).toBe(400);
  });

  it("another user's account is not found; a read-only key cannot write; a guest may only introspect", async () => {
    const other: TestUser = await createTestUser();
    await gqlRefused(t, 'query($id: ID!) { account(id: $id) { id } }', 'NOT_FOUND', 404, { id: acct }, other.headers);
    const nested = await gqlOk(t, '{ transactions(perPage: 5) { data { id } paginatorInfo { total } } }', undefined, other.headers);
    expect(nested.transactions.paginatorInfo.total).toBe(0);
    const reader = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, 'mutation { createAccount(input: { name: "x" }) { id } }', 'INSUFFICIENT_PERMISSIONS', 403, undefined, reader.headers);
    await gqlOk(t, '{ accounts { paginatorInfo { total } } }', undefined, reader.headers);
    await gqlRefused(t, '{ accounts { paginatorInfo { total } } }', 'UNAUTHENTICATED', 401, undefined, {});
    expect((await gqlOk(t, '{ __schema { queryType { name } } }', undefined, {})).__schema.queryType.name).toBe('Query');
    // An invalid credential is refused at the door, as on REST.
    const r = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: { authorization: 'Bearer nope' }, payload: { query: '{ __typename }' } });
    expect(r.statusCode).toBe(401);
  });

  it('a refusal before execution is a GraphQL response too: errors with a message and extensions.code/status, no data (invalid token, malformed body, a body outside its schema)', async () => {
    const invalid = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: { authorization: 'Bearer nope' }, payload: { query: '{ __typename }' } });
    expect(invalid.statusCode).toBe(401);
    const body = invalid.json();
    expect(body).not.toHaveProperty('data');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatchObject({ message: expect.any(String), extensions: { code: expect.stringMatching(/^[A-Z_]+$/), status: 401 } });
    expect(body.errors[0].message.length).toBeGreaterThan(0);
    const malformed = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: { ...t.headers, 'content-type': 'application/json' }, payload: '{"query": ' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors[0]).toMatchObject({ message: 'The request body is not valid JSON', extensions: { code: 'MALFORMED_BODY', status: 400 } });
    // Validation of the body's own schema (a query that is not a string) speaks GraphQL with its pointer.
    const invalidBody = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: t.headers, payload: { query: 42 } });
    expect(invalidBody.statusCode).toBe(422);
    expect(invalidBody.json().errors[0]).toMatchObject({ message: expect.any(String), extensions: { code: 'VALIDATION_ERROR', status: 422, pointer: '/query' } });
  });

  it('GET runs queries and refuses mutations', async () => {
    const q = encodeURIComponent('{ accounts { paginatorInfo { total } } }');
    const r = await t.app.inject({ method: 'GET', url: `/api/graphql?query=${q}`, headers: t.headers });
    expect(r.statusCode).toBe(200);
    expect(r.json().data.accounts.paginatorInfo.total).toBe(1);
    const m = encodeURIComponent('mutation { createAccount(input: { name: "get" }) { id } }');
    const refused = await t.app.inject({ method: 'GET', url: `/api/graphql?query=${m}`, headers: t.headers });
    expect(refused.statusCode).toBe(405);
    expect((await gqlOk(t, '{ accounts { paginatorInfo { total } } }')).accounts.paginatorInfo.total).toBe(1);
  });
});

describe('pagination', () => {
  const page = (p: number, perPage: number, headers = t.headers) =>
    gqlOk(t, 'query($a: ID!, $p: Int, $n: Int) { account(id: $a) { transactions(page: $p, perPage: $n) { data { id amount } paginatorInfo { total currentPage lastPage perPage hasMorePages count firstItem lastItem } } } }', { a: acct, p, n: perPage }, headers);

  it('an exact multiple: 60 items in pages of 20 end on page 3 with no more pages', async () => {
    const last = (await page(3, 20)).account.transactions;
    expect(last.data).toHaveLength(20);
    expect(last.paginatorInfo).toEqual({ total: 60, currentPage: 3, lastPage: 3, perPage: 20, hasMorePages: false, count: 20, firstItem: 41, lastItem: 60 });
    const first = (await page(1, 20)).account.transactions;
    expect(first.paginatorInfo).toMatchObject({ currentPage: 1, hasMorePages: true, firstItem: 1, lastItem: 20 });
    // No item twice, none missing, across the pages.
    const ids = new Set<string>();
    for (const p of [1, 2, 3]) for (const x of (await page(p, 20)).account.transactions.data) ids.add(x.id);
    expect(ids.size).toBe(60);
  });

  it('a page past the end is empty and says so; a short last page', async () => {
    expect((await page(9, 20)).account.transactions).toEqual({
      data: [],
      paginatorInfo: { total: 60, currentPage: 9, lastPage: 3, perPage: 20, hasMorePages: false, count: 0, firstItem: null, lastItem: null },
    });
    expect((await page(7, 9)).account.transactions.paginatorInfo).toEqual({ total: 60, currentPage: 7, lastPage: 7, perPage: 9, hasMorePages: false, count: 6, firstItem: 55, lastItem: 60 });
  });

  it('an empty list has one empty page; out-of-range arguments are refused', async () => {
    const fresh = await createTestUser();
    const empty = await gqlOk(t, '{ accounts { data { id } paginatorInfo { total currentPage lastPage hasMorePages count firstItem lastItem } } }', undefined, fresh.headers);
    expect(empty.accounts).toEqual({ data: [], paginatorInfo: { total: 0, currentPage: 1, lastPage: 1, hasMorePages: false, count: 0, firstItem: null, lastItem: null } });
    await gqlRefused(t, '{ accounts(page: 0) { paginatorInfo { total } } }', 'VALIDATION_ERROR', 422);
    await gqlRefused(t, '{ accounts(perPage: 101) { paginatorInfo { total } } }', 'VALIDATION_ERROR', 422);
  });
});

describe('cost of a page', () => {
  it('50 transactions with their account and asset take at most 3 SQL queries (no N+1)', async () => {
    const spy = vi.spyOn(pg.Client.prototype, 'query');
    const count = async (query: string) => {
      spy.mockClear();
      const data = await gqlOk(t, query);
      return { n: spy.mock.calls.length, data };
    };
    // What any request costs (the credential's lookup): the baseline.
    const base = await count('{ me { userId } }');
    const { n, data } = await count('{ transactions(perPage: 50) { data { id amount account { id name status } asset { code precision } } paginatorInfo { total } } }');
    spy.mockRestore();
    expect(data.transactions.data).toHaveLength(50);
    expect(data.transactions.data.every((x: { account: { id: string } }) => x.account.id === acct)).toBe(true);
    expect(n - base.n).toBeLessThanOrEqual(3);
  });
});

describe('limits', () => {
  const deep = (levels: number) => {
    // account -> transactions -> data -> account -> transactions -> data -> ...
    let sel = 'id';
    for (let i = 0; i < levels; i++) sel = `account { transactions(perPage: 1) { data { ${sel} } } }`;
    return `query($a: ID!) { account(id: $a) { transactions(perPage: 1) { data { ${sel} } } } }`;
  };

  it(`refuses a query deeper than ${MAX_DEPTH} levels, before running it`, async () => {
    const r = await gqlRefused(t, deep(3), 'QUERY_TOO_DEEP', 400, { a: acct });
    expect(r.status).toBe(400);
    expect(r.errors![0].message).toMatch(/levels deep/);
    await gqlOk(t, deep(2), { a: acct });
  });

  it(`refuses a query costing more than ${MAX_COST}: a list's selection counts once per item`, async () => {
    const r = await gqlRefused(t, '{ accounts(perPage: 100) { data { transactions(perPage: 100) { data { id amount account { id name } } } } } }', 'QUERY_TOO_COMPLEX', 400);
    expect(r.errors![0].message).toMatch(/costs \d+/);
    await gqlOk(t, '{ accounts(perPage: 10) { data { transactions(perPage: 20) { data { id amount } } } } }');
  });

  it('introspection is exempt: the full introspection query GraphiQL sends works, for guests too', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const r = await gql(t, getIntrospectionQuery(), undefined, {});
    expect(r.errors).toBeUndefined();
    expect(r.data.__schema.types.some((x: { name: string }) => x.name === 'PaginatorInfo')).toBe(true);
  });
});

describe('playground', () => {
  it('serves GraphiQL with every asset inlined (no CDN) and subscriptions over WebSocket', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/graphql-playground' });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/text\/html/);
    const html = r.body;
    // No script or stylesheet from elsewhere: the page works with no internet.
    expect(html.match(/<script[^>]+src=["']https?:/gi)).toBeNull();
    expect(html.match(/<link[^>]+href=["']https?:/gi)).toBeNull();
    expect(html).toContain('/api/graphql');
    expect(html).toContain('Authorization');
    expect(String(r.headers['content-security-policy'])).toContain('worker-src');
  });
});

describe('one set of input rules with REST', () => {
  it('createTransfer refuses what POST /api/v2/transfers refuses, field by field, with the same code and pointer; nothing moves', async () => {
    const to = (await gqlOk(t, 'mutation { createAccount(input: { name: "payee" }) { id } }')).createAccount.id;
    const base = { from: acct, to, amount: '1.00', asset: 'USD' };
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['reference over 140', { reference: 'r'.repeat(5_000) }, { reference: 'r'.repeat(5_000) }],
      ['description over 500', { description: 'd'.repeat(20_000) }, { description: 'd'.repeat(20_000) }],
      ['from_account over 64', { fromAccount: 'a'.repeat(65) }, { from_account: 'a'.repeat(65) }],
      ['asset_code over 12', { assetCode: 'A'.repeat(13) }, { asset_code: 'A'.repeat(13) }],
    ];
    const before = (await gqlOk(t, 'query($id: ID!) { account(id: $id) { balances { total } } }', { id: acct })).account.balances;
    for (const [what, gqlInput, restBody] of cases) {
      const rest = await t.app.inject({
        method: 'POST',
        url: '/api/v2/transfers',
        headers: t.headers,
        payload: { from_account: base.from, to_account: base.to, amount: base.amount, asset_code: base.asset, workflow_enabled: false, ...restBody },
      });
      const graph = await gql(t, 'mutation($i: TransferInput!) { createTransfer(input: $i) { id } }', {
        i: { fromAccount: base.from, toAccount: base.to, amount: base.amount, assetCode: base.asset, workflowEnabled: false, ...gqlInput },
      });
      const restError = rest.json().errors[0];
      expect({ what, status: rest.statusCode, code: restError.code }).toEqual({ what, status: 422, code: 'VALIDATION_ERROR' });
      expect({ what, status: graph.errors?.[0]?.extensions.status, code: graph.errors?.[0]?.extensions.code, pointer: graph.errors?.[0]?.extensions.pointer }).toEqual({
        what,
        status: 422,
        code: 'VALIDATION_ERROR',
        pointer: restError.source.pointer,
      });
    }
    expect((await gqlOk(t, 'query($id: ID!) { account(id: $id) { balances { total } } }', { id: acct })).account.balances).toEqual(before);
  });

  it('U+0000 in a variable or a string literal is 422 VALIDATION_ERROR, as on REST, never a 500', async () => {
    const viaVariable = await gql(t, 'mutation($i: TransferInput!) { createTransfer(input: $i) { id } }', {
      i: { fromAccount: acct, toAccount: acct, amount: '1.00', assetCode: 'USD', reference: 'a\u0000b' },
    });
    // The request body's text guard (api/plugins/validation.ts) answers first, as for any JSON body.
    expect(viaVariable.status).toBe(422);
    const first = viaVariable.errors?.[0] as { code?: string; extensions?: { code: string } } | undefined;
    expect(first?.extensions?.code ?? first?.code).toBe('VALIDATION_ERROR');
    const viaLiteral = await gql(t, `mutation { createAccount(input: { name: "x\\u0000y" }) { id } }`);
    expect(viaLiteral.status, JSON.stringify(viaLiteral)).toBe(422);
    expect(viaLiteral.errors?.[0]?.extensions, JSON.stringify(viaLiteral)).toMatchObject({ code: 'VALIDATION_ERROR', status: 422 });
    const rest = await t.app.inject({ method: 'POST', url: '/api/v2/accounts', headers: t.headers, payload: { name: 'x\u0000y' } });
    expect([rest.statusCode, rest.json().errors[0].code]).toEqual([422, 'VALIDATION_ERROR']);
  });
});
