/**
 * Cross-chain over GraphQL (api/graphql/areas/crosschain.ts) against the REST routes on the same
 * app: a quote and an initiation through GraphQL are the transfer REST shows; fees and the
 * portfolio equal REST's; refusals carry REST's codes (schema bounds included); another user's
 * transfer is REST's NOT_FOUND; a read-only key cannot quote. Workflows start on a task queue
 * no worker polls, so a transfer stays as initiated while both transports read it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTemporal } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let acct: string;

const EVM_A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const EVM_B = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

beforeAll(async () => {
  t = await createTestApp();
  process.env.TEMPORAL_TASK_QUEUE = `gql-crosschain-${randomBytes(4).toString('hex')}`;
  await closeTemporal();
  acct = (await rest('POST', '/api/v2/accounts', { name: 'crypto' })).json().data.uuid;
  expect((await rest('POST', `/api/v2/accounts/${acct}/deposit`, { amount: '500.00', asset_code: 'USDC' })).statusCode).toBe(201);
});
afterAll(async () => t?.close());

function rest(method: 'GET' | 'POST', url: string, payload?: object, headers = t.headers) {
  return t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
}

/** REST's snake_case keys as GraphQL spells them (a test-side copy, independent of the module's). */
function camel(v: unknown): any {
  if (Array.isArray(v)) return v.map(camel);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camel(x)]));
}

const TRANSFER_FIELDS = `bridgeTxId quoteId status sourceChain destinationChain token bridgeProtocol sourceTxHash destinationTxHash senderAddress
  recipientAddress amount createdAt estimatedCompletionAt accountId assetCode destinationToken feeAmount feeCurrency estimatedReceiveAmount
  minReceiveAmount slippageTolerance deadlineAt workflowId sourceTxKind destinationTxKind attestation failure { code reason } compensation
  recoveryRequired completedAt failedAt`;

const QUOTE = `mutation($input: BridgeQuoteInput!) { createBridgeQuote(input: $input) {
  quoteId bridgeProtocol sourceChain destinationChain token inputAmount estimatedReceiveAmount feeAmount feeCurrency feeBreakdown exchangeRate
  estimatedDurationSeconds quoteExpiresAt alternativeQuotes { bridgeProtocol estimatedReceiveAmount feeAmount estimatedDurationSeconds } createdAt } }`;
const INITIATE = `mutation($input: InitiateBridgeInput!) { initiateBridge(input: $input) { ${TRANSFER_FIELDS} } }`;
const TRANSFER = `query($id: ID!) { bridgeTransfer(id: $id) { ${TRANSFER_FIELDS} history { status detail occurredAt } } }`;

describe('bridges over GraphQL', () => {
  it('quotes and initiates through the domain: REST shows the same transfer, pending, with its quote spent', async () => {
    const q = (await gqlOk(t, QUOTE, { input: { sourceChain: 'ethereum', destinationChain: 'arbitrum', token: 'USDC', amount: '200', preferredBridge: 'wormhole' } }))
      .createBridgeQuote;
    // The quote REST would give for the same request (ids and instants aside).
    const rq = (await rest('POST', '/api/v1/crosschain/bridge/quote', { source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '200', preferred_bridge: 'wormhole' })).json().data;
    const { quoteId, quoteExpiresAt, createdAt, ...same } = q;
    expect(same).toMatchObject({ bridgeProtocol: 'wormhole', inputAmount: '200.000000', feeAmount: '0.500000', estimatedReceiveAmount: '199.500000' });
    expect({ ...camel(rq), feeBreakdown: rq.fee_breakdown }).toMatchObject(same);
    expect(Date.parse(quoteExpiresAt) - Date.parse(createdAt)).toBe(120_000);

    const created = (await gqlOk(t, INITIATE, { input: { quoteId, senderAddress: EVM_A, recipientAddress: EVM_B, slippageTolerance: 0.01, deadlineMinutes: 60 } })).initiateBridge;
    expect(created).toMatchObject({ status: 'pending', quoteId, accountId: acct, amount: '200.000000', minReceiveAmount: '197.505000', sourceTxHash: null, failure: null });

    // REST reads the transfer the mutation made: every field equal.
    const r = await rest('GET', `/api/v1/crosschain/bridge/${created.bridgeTxId}`);
    expect(r.statusCode).toBe(200);
    const viaRest = camel(r.json().data);
    const viaGql = (await gqlOk(t, TRANSFER, { id: created.bridgeTxId })).bridgeTransfer;
    const { history, ...fields } = viaGql;
    expect(fields).toEqual(Object.fromEntries(Object.keys(fields).map((k) => [k, viaRest[k]])));
    expect(history).toEqual(r.json().data.history.map((h: any) => ({ status: h.status, detail: h.detail, occurredAt: h.occurred_at })));

    // The quote was spent by the GraphQL initiation: REST refuses it now.
    const again = await rest('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: quoteId, sender_address: EVM_A, recipient_address: EVM_B });
    expect(again.json().errors[0].code).toBe('QUOTE_ALREADY_USED');
  });

  it('fees per protocol and the portfolio equal the REST answers', async () => {
    const fees = (
      await gqlOk(t, `{ bridgeFees(from: "ethereum", to: "arbitrum", token: "USDC", amount: "1000") { sourceChain destinationChain token assetCode amount recommended
        protocols { protocol supported reason feeAmount feeCurrency feeBreakdown estimatedReceiveAmount estimatedDurationSeconds minAmount maxAmount sourceMechanism destinationMechanism attestation } } }`)
    ).bridgeFees;
    const restFees = (await rest('GET', '/api/v2/crosschain/bridge/fees?from=ethereum&to=arbitrum&token=USDC&amount=1000')).json().data;
    expect(fees).toEqual({ ...camel(restFees), protocols: restFees.protocols.map((p: any) => ({ ...camel(p), feeBreakdown: p.fee_breakdown })) });
    expect(fees.recommended).toBe('wormhole');

    const portfolio = (
      await gqlOk(t, `query($a: ID) { crosschainPortfolio(accountId: $a) { totalUsd chains { chain name caip2 totalUsd holdings { accountId assetCode token tokenAddress address availableBalance reservedBalance totalBalance usdValue } }
        assets { assetCode totalBalance usdValue chains } inFlight { bridgeTxId status amount } } }`, { a: acct })
    ).crosschainPortfolio;
    const restPortfolio = camel((await rest('GET', `/api/v2/crosschain/portfolio?account_id=${acct}`)).json().data);
    expect(portfolio).toEqual({ ...restPortfolio, inFlight: restPortfolio.inFlight.map((x: any) => ({ bridgeTxId: x.bridgeTxId, status: x.status, amount: x.amount })) });
    expect(portfolio.assets.find((a: { assetCode: string }) => a.assetCode === 'USDC')?.totalBalance).toBe('500.000000');
  });

  it('refusals carry the REST code and status: precision (domain), schema bounds (REST schema), unknown chain', async () => {
    const input = { sourceChain: 'ethereum', destinationChain: 'arbitrum', token: 'USDC', amount: '1.1234567' };
    const r = await rest('POST', '/api/v1/crosschain/bridge/quote', { source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '1.1234567' });
    const g = await gqlRefused(t, QUOTE, r.json().errors[0].code, r.statusCode, { input });
    expect(g.errors![0].extensions).toMatchObject({ code: 'AMOUNT_PRECISION', status: 422, pointer: '/amount' });

    // deadline_minutes is bounded by the REST schema only (1–10080): GraphQL applies the same schema.
    const q = (await gqlOk(t, QUOTE, { input: { sourceChain: 'ethereum', destinationChain: 'arbitrum', token: 'USDC', amount: '10' } })).createBridgeQuote;
    const bad = await gqlRefused(t, INITIATE, 'VALIDATION_ERROR', 422, { input: { quoteId: q.quoteId, senderAddress: EVM_A, recipientAddress: EVM_B, deadlineMinutes: 20_000 } });
    expect(bad.errors![0].extensions.pointer).toBe('/deadline_minutes');
    const restBad = await rest('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: q.quoteId, sender_address: EVM_A, recipient_address: EVM_B, deadline_minutes: 20_000 });
    expect([restBad.statusCode, restBad.json().errors[0].code, restBad.json().errors[0].source.pointer]).toEqual([422, 'VALIDATION_ERROR', '/deadline_minutes']);

    const chain = await rest('GET', '/api/v2/crosschain/bridge/fees?from=nowhere&to=arbitrum&token=USDC&amount=1');
    await gqlRefused(t, `{ bridgeFees(from: "nowhere", to: "arbitrum", token: "USDC", amount: "1") { amount } }`, chain.json().errors[0].code, chain.statusCode);
  });

  it("another user's transfer is REST's NOT_FOUND; a read-only key cannot quote", async () => {
    const q = (await gqlOk(t, QUOTE, { input: { sourceChain: 'ethereum', destinationChain: 'arbitrum', token: 'USDC', amount: '20' } })).createBridgeQuote;
    const mine = (await gqlOk(t, INITIATE, { input: { quoteId: q.quoteId, senderAddress: EVM_A, recipientAddress: EVM_B } })).initiateBridge;
    const other = await createTestUser();
    const r = await rest('GET', `/api/v1/crosschain/bridge/${mine.bridgeTxId}`, undefined, other.headers);
    expect(r.statusCode).toBe(404);
    await gqlRefused(t, TRANSFER, r.json().errors[0].code, 404, { id: mine.bridgeTxId }, other.headers);
    await gqlRefused(t, `query($id: ID!) { crosschainSwap(id: $id) { status } }`, 'NOT_FOUND', 404, { id: 'xcs_nope' }, other.headers);

    const reader = await createTestUser({ permissions: ['read'] });
    await gqlRefused(t, QUOTE, 'INSUFFICIENT_PERMISSIONS', 403, { input: { sourceChain: 'ethereum', destinationChain: 'arbitrum', token: 'USDC', amount: '1' } }, reader.headers);
    // Reading is allowed to that key.
    expect((await gql(t, '{ crosschainPortfolio { totalUsd } }', undefined, reader.headers)).errors).toBeUndefined();
  });
});
