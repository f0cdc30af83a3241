/**
 * DeFi over GraphQL (api/graphql/areas/defi.ts, defi-positions.ts) against the REST routes on the
 * same app: liquidity added and lending supplied through GraphQL are the positions REST shows
 * (and the chain books moved); pools, products and positions read equal to REST; refusals carry
 * REST's codes, schema bounds included; another user's position is REST's not-found; a read-only
 * key cannot supply. No workflow runs here (these operations post at once).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { book, fundBook, openAccount } from '../defi/helpers';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let acct: string;

const SUSHI = 'arbitrum-sushiswap-weth-usdc-3000';
const WETH_MARKET = 'ethereum-aave-weth';

beforeAll(async () => {
  t = await createTestApp();
  acct = await openAccount(t, t.headers);
  await fundBook(acct, 'WETH', 'arbitrum', '10');
  await fundBook(acct, 'USDC', 'arbitrum', '50000.000000');
  await fundBook(acct, 'WETH', 'ethereum', '20');
}, 120_000);
afterAll(async () => t?.close());

const rest = (method: 'GET' | 'POST', url: string, payload?: object, headers = t.headers) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

/** REST's snake_case keys as GraphQL spells them (a test-side copy, independent of the module's). */
function camel(v: unknown): any {
  if (Array.isArray(v)) return v.map(camel);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camel(x)]));
}

const LP_FIELDS = `positionId positionType status accountId chain dex poolId tokens deposited withdrawn shares sharesMinted openEntryId closeEntryId
  valuation { amounts holdAmounts poolSharePercent usdValue holdUsdValue impermanentLossUsd impermanentLossPercent } createdAt closedAt`;
const ADD = `mutation($input: AddLiquidityInput!) { addLiquidity(input: $input) { ${LP_FIELDS} } }`;
const SUPPLY = `mutation($input: LendingOperationInput!) { lendingSupply(input: $input) {
  operation { id positionId kind marketId assetCode amount seized { amount } healthFactor entryId createdAt }
  position { positionId status accountId chain protocol supplied { marketId assetCode amount } borrowed { marketId } liquidations } } }`;

describe('DeFi over GraphQL', () => {
  it('adds liquidity through the domain: the chain books moved, and the position reads the same over both transports', async () => {
    const before = await book(acct, 'WETH', 'arbitrum');
    const pos = (await gqlOk(t, ADD, { input: { poolId: SUSHI, accountId: acct, amounts: { WETH: '2', USDC: '10000' } } })).addLiquidity;
    expect(pos).toMatchObject({ positionType: 'liquidity', status: 'open', accountId: acct, chain: 'arbitrum', dex: 'sushiswap', poolId: SUSHI, tokens: ['WETH', 'USDC'] });
    const after = await book(acct, 'WETH', 'arbitrum');
    expect(Number(before.total) - Number(after.total)).toBeCloseTo(Number(pos.deposited[0]), 12);

    const r = await rest('GET', `/api/v2/defi/liquidity/positions/${pos.positionId}`);
    expect(r.statusCode).toBe(200);
    const one = (await gqlOk(t, `query($id: ID!) { liquidityPosition(id: $id) { ${LP_FIELDS} } }`, { id: pos.positionId })).liquidityPosition;
    expect(one).toEqual(camel(r.json().data));

    const list = (await gqlOk(t, `{ liquidityPositions(perPage: 10) { data { positionId } paginatorInfo { total count } } }`)).liquidityPositions;
    const restList = (await rest('GET', '/api/v2/defi/liquidity/positions')).json().data;
    expect(list.data.map((p: { positionId: string }) => p.positionId)).toEqual(restList.map((p: { position_id: string }) => p.position_id));
    expect(list.paginatorInfo.total).toBe(restList.length);
  });

  it('supplies to a money market through the domain: REST shows the position with the operation', async () => {
    const before = await book(acct, 'WETH', 'ethereum');
    const { operation, position } = (await gqlOk(t, SUPPLY, { input: { marketId: WETH_MARKET, amount: '10', accountId: acct } })).lendingSupply;
    expect(operation).toMatchObject({ kind: 'supply', marketId: WETH_MARKET, assetCode: 'WETH', amount: '10.000000000000000000', seized: null, healthFactor: null });
    expect(position).toMatchObject({ status: 'open', accountId: acct, chain: 'ethereum', protocol: 'aave', borrowed: [], liquidations: 0 });
    expect(new Number(before.total).valueOf() - new Number((await book(acct, 'WETH', 'ethereum')).total).valueOf()).toBe(10);

    const r = (await rest('GET', `/api/v2/defi/lending/positions/${position.positionId}`)).json().data;
    expect(r.operations.map((o: { id: string }) => o.id)).toEqual([operation.id]);
    const g = (await gqlOk(t, `query($id: ID!) { lendingPosition(id: $id) { positionId positionType status accountId chain protocol warningThreshold liquidationWarning createdAt
      supplied { marketId assetCode } operations { id kind marketId assetCode amount entryId createdAt } } }`, { id: position.positionId })).lendingPosition;
    const c = camel(r);
    expect(g).toEqual({
      positionId: c.positionId,
      positionType: c.positionType,
      status: c.status,
      accountId: c.accountId,
      chain: c.chain,
      protocol: c.protocol,
      warningThreshold: c.warningThreshold,
      liquidationWarning: c.liquidationWarning,
      createdAt: c.createdAt,
      supplied: c.supplied.map((s: any) => ({ marketId: s.marketId, assetCode: s.assetCode })),
      operations: c.operations.map((o: any) => ({ id: o.id, kind: o.kind, marketId: o.marketId, assetCode: o.assetCode, amount: o.amount, entryId: o.entryId, createdAt: o.createdAt })),
    });
  });

  it('pools and staking products equal the REST answers', async () => {
    const pools = (
      await gqlOk(t, `{ defiPools(chain: "arbitrum") { dexes { dex name model } pools { id chain dex kind address feeTier amplification weights tokens { assetCode decimals reserve } swapCount updatedAt }
        lendingPools { id chain protocol assetCode liquidity flashLoanFee loanCount } } }`)
    ).defiPools;
    expect(pools).toEqual(camel((await rest('GET', '/api/v2/defi/pools?chain=arbitrum')).json().data));
    expect(pools.pools.length).toBeGreaterThan(0);

    const products = (await gqlOk(t, `{ stakingProducts(perPage: 100) { data { id chain protocol asset name annualRate epochSeconds unbondingSeconds minimumStake active } } }`)).stakingProducts;
    expect(products.data).toEqual(camel((await rest('GET', '/api/v2/defi/staking/products')).json().data));
  });

  it('refusals carry the REST code and status: precision, schema bounds, unknown pool, unknown chain', async () => {
    const tooFine = { market_id: WETH_MARKET, amount: '0.0000000000000000001', account_id: acct };
    const r = await rest('POST', '/api/v2/defi/lending/supply', tooFine);
    expect(r.statusCode).toBe(422);
    const g = await gqlRefused(t, SUPPLY, r.json().errors[0].code, 422, { input: { marketId: WETH_MARKET, amount: tooFine.amount, accountId: acct } });
    expect(g.errors![0].extensions.pointer).toBe(r.json().errors[0].source.pointer);

    // slippage_bps is bounded by the REST schema (0–5000), not by the domain.
    const SWAP = `mutation($input: QuoteAndExecuteSwapInput!) { quoteAndExecuteDefiSwap(input: $input) { swapId } }`;
    const bad = await gqlRefused(t, SWAP, 'VALIDATION_ERROR', 422, { input: { fromToken: 'WETH', toToken: 'USDC', amount: '1', chain: 'arbitrum', slippageBps: 6000 } });
    expect(bad.errors![0].extensions.pointer).toBe('/slippage_bps');

    const pool = await rest('POST', '/api/v2/defi/liquidity/add', { pool_id: 'nope', amounts: { WETH: '1' } });
    await gqlRefused(t, ADD, pool.json().errors[0].code, pool.statusCode, { input: { poolId: 'nope', amounts: { WETH: '1' } } });
    const chain = await rest('GET', '/api/v2/defi/pools?chain=nowhere');
    await gqlRefused(t, '{ defiPools(chain: "nowhere") { pools { id } } }', chain.json().errors[0].code, chain.statusCode);
  });

  it("another user's positions are REST's not-found; a read-only key cannot supply", async () => {
    const lp = (await gqlOk(t, `{ liquidityPositions { data { positionId } } }`)).liquidityPositions.data[0].positionId;
    const lending = (await gqlOk(t, `{ lendingPositions { data { positionId } } }`)).lendingPositions.data[0].positionId;
    const other = await createTestUser();
    for (const [query, url, id] of [
      [`query($id: ID!) { liquidityPosition(id: $id) { positionId } }`, `/api/v2/defi/liquidity/positions/${lp}`, lp],
      [`query($id: ID!) { lendingPosition(id: $id) { positionId } }`, `/api/v2/defi/lending/positions/${lending}`, lending],
    ]) {
      const r = await rest('GET', url, undefined, other.headers);
      expect(r.statusCode).toBe(404);
      await gqlRefused(t, query, r.json().errors[0].code, 404, { id }, other.headers);
    }
    expect((await gqlOk(t, `{ lendingPositions { data { positionId } } }`, undefined, other.headers)).lendingPositions.data).toEqual([]);

    const reader = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, SUPPLY, 'INSUFFICIENT_PERMISSIONS', 403, { input: { marketId: WETH_MARKET, amount: '1' } }, reader.headers);
    expect((await gql(t, '{ defiPortfolio { totalUsdValue } }', undefined, reader.headers)).errors).toBeUndefined();
  });
});
