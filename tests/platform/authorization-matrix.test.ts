import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../domain/auth/api-keys';
import { moduleOfTags } from '../../domain/partner/modules';
import { getPool } from '../../domain/db/pool';
import { newId } from '../../domain/platform/ids';
import { TPP_CERTIFICATE_HEADER, type Psd2Role } from '../../domain/open-banking/certificates';
import { issueSandboxCertificate } from '../../domain/open-banking/sandbox-ca';
import { registerTpp } from '../../domain/open-banking/tpps';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';

/**
 * Authorization matrix, generated from the routes the built app registered (so a new route is
 * covered, or fails here, without anyone remembering to add it): every route x {no credential,
 * another user, read-only key, expired key, revoked key, key bound to another IP, production key
 * on a sandbox resource}, and operator-only routes x customer. Path parameters are filled with
 * real ids of user A's resources; a parameter with no fixture fails the test.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Route {
  method: Method;
  path: string;
}

/** Reachable without credentials. */
const PUBLIC = [
  /^\/api\/health$/,
  /^\/api\/ready$/,
  /^\/api\/openapi\.json$/,
  /^\/api\/documentation(\/.*|\*)?$/,
  /^\/api\/auth\/(register|login|refresh)$/,
  /^\/api\/v2\/mobile\/auth\/passkey\/(options|verify)$/,
  // The signed, expiring link is the credential (domain/partner/sdk/links.ts; tests/partner/sdk.test.ts).
  /^\/api\/v2\/partner\/sdk\/packages\/:id\/download$/,
  // Paid per message (the payment is the credential) and its price list; the sandbox facilitator's protocol endpoints.
  /^\/api\/v1\/sms\/(send|rates|callbacks\/twilio)$/,
  /^\/api\/v2\/x402\/facilitator\/(supported|verify|settle)$/,
  // Open banking TPP registry: the certificate is the credential (tests/open-banking/tpps.test.ts).
  /^\/api\/v1\/open-banking\/tpps(\/me)?$/,
  // Open banking, the platform spec's three rows: the TPP's certificate is the credential (tests/open-banking/consents.test.ts, payments.test.ts).
  /^\/api\/v1\/open-banking\/(consents|accounts|payments)$/,
  // Berlin Group account information: the TPP's certificate and Consent-ID are the credential (tests/open-banking/ais.test.ts).
  /^\/api\/v1\/open-banking\/psd2\/v1\/accounts(\/:accountId(\/balances|\/transactions)?)?$/,
  // Berlin Group payment initiation: the TPP's certificate is the credential (tests/open-banking/payments.test.ts).
  /^\/api\/v1\/open-banking\/psd2\/v1\/payments\/:paymentProduct(\/:paymentId(\/status|\/authorisations(\/:authorisationId)?)?)?$/,
  // Berlin Group consents: the TPP's certificate is the credential (tests/open-banking/consents.test.ts).
  /^\/api\/v1\/open-banking\/psd2\/v1\/consents(\/:consentId(\/status|\/authorisations(\/:authorisationId)?)?)?$/,
  // The redirect SCA page: the unguessable authorisation id is the capability.
  /^\/open-banking\/sca\/:authorisationId$/,
  // OAuth protocol endpoints: client authentication is the credential (RFC 6749; tests/oauth); the consent page and metadata are public.
  /^\/oauth\/(authorize|token|revoke|introspect)$/,
  /^\/\.well-known\/oauth-authorization-server$/,
  // GraphQL: public with an optional credential; each field asks for the principal and permission it needs (tests/graphql).
  /^\/api\/graphql$/,
  /^\/api\/graphql-playground$/,
];

/** Public reads (config public + optionalAuth): GET needs no credential; other methods on the path do. */
const PUBLIC_READS = [
  /^\/api\/v2\/baskets(\/:code)?$/,
  /^\/api\/v2\/gcu(\/composition|\/value-history)?$/,
  /^\/api\/v2\/gcu\/voting\/proposals(\/:id)?$/,
  /^\/api\/v1\/sms\/info$/,
  // What an SCA authorisation asks (the id is the capability); deciding it needs the customer's session.
  /^\/api\/v1\/open-banking\/sca\/:authorisationId$/,
];

/**
 * Resources of an environment rather than of a user (a governance proposal): another user of the
 * same environment reaches them (and is refused by a rule, e.g. 422 NO_VOTING_POWER), a key of the
 * other environment gets 404.
 */
const ENVIRONMENT_SCOPED = ['POST /api/v2/gcu/voting/proposals/:id/vote', 'POST /api/voting/polls/:id/vote'];

/**
 * Resources of a user in every environment (a passkey signs in to either): another user gets 404,
 * the same user's key of the other environment reaches them.
 */
const USER_SCOPED = [
  'GET /api/v2/mobile/auth/passkeys',
  'DELETE /api/v2/mobile/auth/passkeys/:id',
];

/**
 * Partner rows (config.partnerKey): besides the bearer key they need the partner's X-Partner-Key; a
 * customer's key (no partner key) gets 401 PARTNER_KEY_INVALID. tests/partner covers partners' keys.
 */
const PARTNER_ROWS = [
  'GET /api/v2/partner',
  'POST /api/v2/partner/tenants',
  'GET /api/v2/partner/tenants',
  'POST /api/v2/partner/tenants/:id/users',
  'GET /api/v2/partner/tenants/:id/users',
  'PUT /api/v2/partner/config/whitelabel',
  'GET /api/v2/partner/config/whitelabel',
  'POST /api/v2/partner/sdk/generate',
  'GET /api/v2/partner/sdk/generations/:id',
];

/**
 * Writes by HTTP method that need only the read permission (config.permission: 'read'): the MCP
 * endpoint carries read tools and send_sms, which checks write itself (tests/mcp).
 */
const READ_PERMISSION_POSTS = ['POST /mcp', 'POST /api/v1/ai/transactions', 'POST /api/v2/ai/query'];

/** Reserved for platform operators (config.admin): a customer gets 403 ADMIN_REQUIRED. */
const OPERATOR_ONLY = [
  'GET /api/metrics',
  'POST /api/v1/ledger/entries',
  'GET /api/v1/ledger/entries/:id',
  'POST /api/v1/ledger/entries/:id/post',
  'POST /api/v1/ledger/entries/:id/void',
  'GET /api/v1/ledger/trial-balance',
  'GET /api/v1/live-dashboard/metrics',
  'GET /api/v1/live-dashboard/domain-health',
  'GET /api/v1/live-dashboard/event-throughput',
  'GET /api/v1/live-dashboard/stream-status',
  'GET /api/v1/live-dashboard/projector-lag',
  'POST /api/v2/accounts/:uuid/freeze',
  'POST /api/v2/accounts/:uuid/unfreeze',
  'POST /api/v2/accounts/:uuid/close',
  'POST /api/v2/transfers/:uuid/review',
  'POST /api/v2/baskets',
  'POST /api/v2/gcu/voting/proposals',
  'POST /api/v2/gcu/voting/proposals/:id/cancel',
  'POST /api/v2/gcu/voting/proposals/:id/execute',
  'POST /api/v2/regtech/sanctions/reload',
  'POST /api/v2/regtech/mica/issuers',
  'POST /api/v2/regtech/mica/whitepapers',
  'POST /api/v2/regtech/mifid/instruments',
  'POST /api/v1/partner/onboard',
  'GET /api/v2/regtech/holds',
  'GET /api/v2/regtech/holds/:id',
  'POST /api/v2/regtech/holds/:id/release',
  'POST /api/v2/regtech/holds/:id/reject',
  'POST /api/v2/x402/endpoints',
  'DELETE /api/v2/x402/endpoints/:id',
  'POST /api/v1/microfinance/offices',
  'POST /api/v1/microfinance/offices/:id/tellers',
  'POST /api/v1/microfinance/offices/:id/vault/funding',
  'GET /api/v1/microfinance/provision-policies',
  'POST /api/v1/operators/maintenance',
  'GET /api/v1/operators/maintenance',
  'DELETE /api/v1/operators/maintenance/:id',
  'POST /api/v1/microfinance/provision-policies',
  'GET /api/v1/microfinance/provisioning/runs',
  'POST /api/v1/microfinance/provisioning/runs',
  'GET /api/v1/microfinance/reports/portfolio',
  'POST /api/v1/microfinance/groups/:id/activate',
  'POST /api/v1/microfinance/groups/:id/close',
  'POST /api/v1/microfinance/loan-products',
  'POST /api/v1/microfinance/loans/:id/approve',
  'POST /api/v1/microfinance/loans/:id/reject',
  'POST /api/v1/microfinance/loans/:id/disburse',
  'POST /api/v1/microfinance/loans/:id/write-off',
];

/** The route table of the built app, from its radix tree as printRoutes draws it. */
function routesOf(app: TestApp['app']): Route[] {
  const out: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (depth > 0 ? stack[depth - 1] : '') + m[2];
    stack.push(path);
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      out.push({ method: method as Method, path });
    }
  }
  return out;
}

/**
 * Valid bodies for writes on a resource, so that a request from another user or environment
 * passes validation and reaches the ownership check (where it must find nothing: 404).
 */
const BODIES: Record<string, unknown> = {
  'PATCH /api/v2/accounts/:uuid': { name: 'renamed' },
  'POST /api/v2/accounts/:uuid/deposit': { amount: '1.00', asset_code: 'USD' },
  'POST /api/v1/open-banking/sca/:authorisationId': { decision: 'approve' },
  'POST /api/v2/accounts/:uuid/withdraw': { amount: '1.00', asset_code: 'USD' },
  'PUT /api/v2/webhooks/:id': { active: false },
  'POST /api/v2/accounts/:uuid/baskets/compose': { basket_code: 'GCU', amount: '1' },
  'POST /api/v2/accounts/:uuid/baskets/decompose': { basket_code: 'GCU', amount: '1' },
  'POST /api/v2/gcu/voting/proposals/:id/vote': { vote: 'for' },
  'POST /api/voting/polls/:id/vote': { vote: 'for' },
  'POST /api/v1/microfinance/teller/sessions/:id/close': { counted: [{ currency: 'USD', amount: '0' }] },
  'POST /api/v1/microfinance/teller/sessions/:id/variance/approve': {},
};

const key = (r: Route) => `${r.method} ${r.path}`;
const isPublic = (r: Route) => PUBLIC.some((p) => p.test(r.path)) || (r.method === 'GET' && PUBLIC_READS.some((p) => p.test(r.path)));

let t: TestApp;
let w: TestWorker;
let a: TestUser;
let b: TestUser;
let operator: TestUser;
/** A member (not the leader) of A's microfinance group, and the group's loan product. */
let groupMember: TestUser;
let groupProduct: string;
const creds: Record<string, Record<string, string>> = {};
/** Path parameter values by route prefix (longest prefix wins), and every id of A's. */
const fixtures: Array<{ prefix: string; params: Record<string, string> }> = [];
const aIds = new Set<string>();
/** Creations that name A's resources in the body: another user or environment must get 404. */
const CROSS_BODIES: Record<string, unknown> = {};

const call = (method: Method, url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function create(url: string, payload: unknown, headers = a.headers): Promise<Record<string, any>> {
  const r = await call('POST', url, headers, payload);
  if (r.statusCode >= 300) throw new Error(`fixture ${url}: ${r.statusCode} ${r.body}`);
  return r.json().data;
}

function bearer(value: string) {
  return { authorization: `Bearer ${value}` };
}

async function keyFor(user: TestUser, opts: Partial<Parameters<typeof createApiKey>[0]>) {
  const { record, value } = await createApiKey({ userId: user.userId, name: 'matrix', environment: 'sandbox', permissions: ['read', 'write', 'delete'], ...opts });
  return { id: record.id, headers: bearer(value) };
}

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_URLS = 'true';
  process.env.WEBHOOK_ALLOW_HTTP = 'true';
  t = await createTestApp();
  w = await startTestWorker();
  a = t.user;
  b = await createTestUser();
  operator = await createTestUser({ admin: true });

  creds.readOnly = (await keyFor(a, { permissions: ['read'] })).headers;
  creds.expired = (await keyFor(a, { expiresAt: new Date(Date.now() - 60_000) })).headers;
  const revoked = await keyFor(a, {});
  await getPool().query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [revoked.id]);
  creds.revoked = revoked.headers;
  creds.wrongIp = (await keyFor(a, { ipAllowlist: ['203.0.113.7'] })).headers;
  creds.production = (await keyFor(a, { environment: 'production' })).headers;
  creds.operatorReadOnly = (await keyFor(operator, { permissions: ['read'] })).headers;

  // User A's resources, created through the API where that is cheap.
  const account = (await create('/api/v2/accounts', { name: 'matrix A' })).uuid as string;
  const other = (await create('/api/v2/accounts', { name: 'matrix A 2' })).uuid as string;
  const dep = await create(`/api/v2/accounts/${account}/deposit`, { amount: '5000.00', asset_code: 'USD' });
  const transfer = await create('/api/v2/transfers', { from_account: account, to_account: other, amount: '10.00', asset_code: 'USD', workflow_enabled: false });
  const trParties = { originator: { name: 'Alice Example', account_number: 'acct-a' }, beneficiary: { name: 'Bob Receiver', account_number: 'acct-b' } };
  const trBody = { transfer_id: transfer.uuid ?? transfer.id, ...trParties, transfer_details: { amount: '10.00', currency: 'USD' }, jurisdiction: 'US' };
  const travelCheck = (await create('/api/v1/regtech/travel-rule/check', trBody)).check_id as string;
  const micaCheck = (await create('/api/v2/regtech/mica/check', { asset_type: 'art', issuer_id: 'iss_platform', whitepaper_hash: '0'.repeat(64) })).check_id as string;
  const apiKey = await keyFor(a, {});
  const webhook = await create('/api/v2/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['*'], active: false });
  const rail = await create('/api/v1/payment-rails/payments', {
    account_id: account,
    amount: '12.34',
    currency: 'USD',
    rail: 'fednow',
    creditor_account: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' },
  });
  const ilpQuote = await create('/api/v1/interledger/quotes', { send_amount: '1.00', send_currency: 'USD', receive_currency: 'EUR', receiver: '$wallet.example/alice' });
  const ilpPayment = await create('/api/v1/interledger/payments', { quote_id: ilpQuote.id ?? ilpQuote.quote_id, account_id: account });

  // Records whose creation needs funded chain books or a profitable market are inserted as rows of A.
  const { rows: entries } = await getPool().query<{ id: string }>(`SELECT entry_id AS id FROM ledger_lines WHERE account_id = $1 LIMIT 1`, [account]);
  const entryId = entries[0].id;
  const bridgeQuote = (await create('/api/v1/crosschain/bridge/quote', { source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '1000' })).quote_id as string;
  const swapQuote = (await create('/api/v1/defi/swap/quote', { chain: 'arbitrum', token_in: 'USDC', token_out: 'WETH', amount_in: '100' })).quote_id as string;
  const ids = { bridge: newId('bridge'), swap: newId('swap'), flash: newId('flash'), xswap: newId('ccswap'), delivery: newId('whdel') };
  await seedRows({ userId: a.userId, account, entryId, webhookId: webhook.id, bridgeQuote, swapQuote, ...ids });
  // A liquidity position of A's (docs/defi.md): another user removing it gets 404.
  const lpPosition = newId('lp');
  await getPool().query(
    `INSERT INTO defi_liquidity_positions (id, environment, user_id, account_id, pool_id, chain, dex, tokens, shares, shares_minted, deposited, withdrawn, status, open_entry_id, idempotency_key)
     VALUES ($1, 'sandbox', $2, $3, 'arbitrum-sushiswap-weth-usdc-3000', 'arbitrum', 'sushiswap', '{WETH,USDC}', 1, 1, '{1,1}', '{0,0}', 'open', $4, $1)`,
    [lpPosition, a.userId, account, entryId],
  );
  aIds.add(lpPosition);
  CROSS_BODIES['POST /api/v2/defi/liquidity/remove'] = { position_id: lpPosition, share: '0.5' };
  // A lending position of A's (docs/defi.md "Lending"): another user reading it gets 404; naming A's account in a lending operation too.
  const lnPosition = newId('ln');
  await getPool().query(`INSERT INTO defi_lending_positions (id, environment, user_id, account_id, chain, protocol, status) VALUES ($1, 'sandbox', $2, $3, 'ethereum', 'aave', 'open')`, [lnPosition, a.userId, account]);
  aIds.add(lnPosition);
  CROSS_BODIES['POST /api/v2/defi/lending/supply'] = { market_id: 'ethereum-aave-usdc', amount: '1', account_id: account };
  // A staking position of A's (docs/defi.md "Staking"): another user unstaking, harvesting or reading it gets 404.
  const stPosition = newId('st');
  await getPool().query(
    `INSERT INTO defi_staking_positions (id, environment, user_id, account_id, product_id, chain, protocol, asset_code, staked_amount, principal, status, staked_at, stake_entry_id, idempotency_key)
     VALUES ($1, 'sandbox', $2, $3, 'ethereum-beacon-eth', 'ethereum', 'beacon', 'ETH', 1, 1, 'staked', now(), $4, $1)`,
    [stPosition, a.userId, account, entryId],
  );
  aIds.add(stPosition);
  CROSS_BODIES['POST /api/v2/defi/staking/unstake'] = { position_id: stPosition };
  CROSS_BODIES['POST /api/v2/defi/staking/harvest'] = { position_id: stPosition };
  fixtures.push({ prefix: '/api/v2/defi/staking/positions/', params: { id: stPosition } });
  aIds.add(bridgeQuote);
  aIds.add(swapQuote);
  const wallet = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  Object.assign(CROSS_BODIES, {
    'POST /api/v2/transfers': { from_account: account, to_account: other, amount: '1.00', asset_code: 'USD', workflow_enabled: false },
    'POST /api/v1/payment-rails/payments': { account_id: account, amount: '1.00', currency: 'USD', rail: 'fednow', creditor_account: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' } },
    'POST /api/v1/interledger/payments': { quote_id: ilpQuote.id ?? ilpQuote.quote_id, account_id: account },
    'POST /api/v1/crosschain/bridge/initiate': { quote_id: bridgeQuote, sender_address: wallet, recipient_address: wallet, account_id: account },
    'POST /api/v1/defi/swap/execute': { quote_id: swapQuote, wallet_address: wallet },
    'POST /api/v2/gcu/buy': { account_uuid: account, spend_asset: 'USD', amount: '1' },
    'POST /api/v1/regtech/travel-rule/check': trBody,
    'POST /api/v2/regtech/travel-rule/transfers': { transfer_id: trBody.transfer_id, originator: { name: 'Alice Example' }, beneficiary: { name: 'Bob Receiver' }, amount: '1.00', currency: 'USD' },
  });
  aIds.add(travelCheck);
  aIds.add(micaCheck);

  const basketBuy = (await create('/api/v2/gcu/buy', { account_uuid: account, spend_asset: 'USD', amount: '1' })).id as string;
  // A is a teller of an office with an open cashier session (tests/microfinance/teller.test.ts).
  const mfOffice = (await create('/api/v1/microfinance/offices', { name: 'matrix branch' }, operator.headers)).id as string;
  await create(`/api/v1/microfinance/offices/${mfOffice}/tellers`, { user_id: a.userId }, operator.headers);
  await create(`/api/v1/microfinance/offices/${mfOffice}/vault/funding`, { currency: 'USD', amount: '100.00' }, operator.headers);
  const tellerSession = (await create('/api/v1/microfinance/teller/sessions', { office_id: mfOffice, allocations: [{ currency: 'USD', amount: '10.00' }] })).id as string;
  fixtures.push({ prefix: '/api/v1/microfinance/teller/sessions/', params: { id: tellerSession } }, { prefix: '/api/v1/microfinance/offices/', params: { id: mfOffice } });
  CROSS_BODIES['POST /api/v1/microfinance/teller/transactions'] = { session_id: tellerSession, type: 'cash_deposit', account_id: account, amount: '1.00', currency: 'USD' };
  aIds.add(tellerSession);
  aIds.add(mfOffice);
  // An active loan of A's (stored rows; tests/microfinance/provisioning.test.ts): its provision is A's alone.
  const mfGroup = newId('mfgrp');
  const mfProduct = newId('mfprod');
  const mfLoan = newId('loan');
  await getPool().query(`INSERT INTO mf_groups (id, environment, name, liability_type, status, created_by) VALUES ($1, 'sandbox', 'matrix', 'joint', 'active', $2)`, [mfGroup, a.userId]);
  await getPool().query(
    `INSERT INTO mf_loan_products (id, environment, name, currency, principal_min, principal_max, annual_interest_rate, interest_method, term_instalments, repayment_frequency)
     VALUES ($1, 'sandbox', 'matrix', 'USD', 1, 1000, 0.12, 'flat', 1, 'monthly')`,
    [mfProduct],
  );
  await getPool().query(
    `INSERT INTO mf_loans (id, environment, group_id, user_id, account_id, product_id, currency, principal, annual_interest_rate, interest_method, term_instalments, repayment_frequency, status, workflow_id, disbursed_on)
     VALUES ($1, 'sandbox', $2, $3, $4, $5, 'USD', 100, 0.12, 'flat', 1, 'monthly', 'active', $1, current_date)`,
    [mfLoan, mfGroup, a.userId, account, mfProduct],
  );
  fixtures.push({ prefix: '/api/v1/microfinance/loans/:id/provision', params: { id: mfLoan } });
  aIds.add(mfLoan);
  // A leads a joint-liability group with two other customers and has applied for a loan in it (tests/microfinance/loans.test.ts).
  const mfMembers: TestUser[] = [];
  for (let i = 0; i < 2; i++) {
    const u = await createTestUser();
    await create('/api/v2/accounts', { name: 'mf member' }, u.headers);
    mfMembers.push(u);
  }
  const mfGroupReal = (await create('/api/v1/microfinance/groups', { name: 'matrix group', members: mfMembers.map((u) => u.userId) })).id as string;
  // The invited members accept (each with their own account) before an operator activates.
  for (const u of mfMembers) {
    const accepted = await t.app.inject({ method: 'POST', url: `/api/v1/microfinance/groups/${mfGroupReal}/accept`, headers: u.headers, payload: {} });
    expect(accepted.statusCode, accepted.body).toBe(200);
  }
  await create(`/api/v1/microfinance/groups/${mfGroupReal}/activate`, {}, operator.headers);
  const mfProductReal = (await create('/api/v1/microfinance/loan-products', {
    name: 'matrix', currency: 'USD', principal_min: '1.00', principal_max: '100.00', annual_interest_rate: '0.12', interest_method: 'flat', term_instalments: 2, repayment_frequency: 'monthly',
  }, operator.headers)).id as string;
  const mfLoanReal = (await create(`/api/v1/microfinance/groups/${mfGroupReal}/loans`, { product_id: mfProductReal, principal: '10.00' })).id as string;
  groupMember = mfMembers[0];
  groupProduct = mfProductReal;
  fixtures.push({ prefix: '/api/v1/microfinance/groups/', params: { id: mfGroupReal } }, { prefix: '/api/v1/microfinance/loans/', params: { id: mfLoanReal } });
  BODIES['POST /api/v1/microfinance/groups/:id/loans'] = { product_id: mfProductReal, principal: '1.00' };
  BODIES['POST /api/v1/microfinance/loans/:id/repayments'] = { amount: '1.00' };
  for (const id of [mfGroupReal, mfLoanReal]) aIds.add(id);
  const proposal = (await create('/api/v2/gcu/voting/proposals', { title: 'matrix', components: [{ asset_code: 'USD', weight: '0.5' }, { asset_code: 'EUR', weight: '0.5' }] }, operator.headers)).id as string;

  const ledger = {
    account: account,
    transfer: transfer.uuid ?? transfer.id,
  };
  fixtures.push(
    { prefix: '/api/accounts/', params: { uuid: account } },
    { prefix: '/api/v2/accounts/', params: { uuid: account } },
    { prefix: '/api/v2/transfers/', params: { uuid: ledger.transfer } },
    { prefix: '/api/v2/baskets/', params: { code: 'GCU' } },
    { prefix: '/api/v2/gcu/voting/proposals/', params: { id: proposal } },
    { prefix: '/api/voting/polls/', params: { id: proposal } },
    { prefix: '/api/v2/gcu/buy/', params: { id: basketBuy } },
    { prefix: '/api/v2/regtech/travel-rule/checks/', params: { id: travelCheck } },
    { prefix: '/api/v2/regtech/mica/checks/', params: { id: micaCheck } },
    { prefix: '/api/v2/partner/tenants/', params: { id: `ten_${'0'.repeat(32)}` } },
    { prefix: '/api/v2/partner/sdk/generations/', params: { id: `sdkg_${'0'.repeat(32)}` } },
    // Operator-only: a customer is refused before the id is looked up.
    { prefix: '/api/v2/regtech/holds/', params: { id: `hold_${'0'.repeat(32)}` } },
    { prefix: '/api/v2/api-keys/', params: { id: apiKey.id } },
    { prefix: '/api/v2/webhooks/', params: { id: webhook.id, deliveryId: ids.delivery } },
    { prefix: '/api/v2/crosschain/bridge/', params: { id: ids.bridge } },
    { prefix: '/api/v1/crosschain/bridge/', params: { id: ids.bridge } },
    { prefix: '/api/v2/crosschain/swap/', params: { id: ids.xswap } },
    { prefix: '/api/v2/defi/swaps/', params: { swap_id: ids.swap } },
    { prefix: '/api/v1/defi/swap/', params: { swap_id: ids.swap } },
    { prefix: '/api/v2/defi/flash-loans/', params: { id: ids.flash } },
    { prefix: '/api/v2/defi/liquidity/positions/', params: { id: lpPosition } },
    { prefix: '/api/v2/defi/lending/positions/', params: { id: lnPosition } },
    { prefix: '/api/v1/ledger/entries/', params: { id: entryId } },
    { prefix: '/api/v1/open-banking/psd2/v1/accounts/', params: { accountId: account } },
    { prefix: '/api/v1/open-banking/psd2/v1/consents/', params: { consentId: `consent_${'0'.repeat(32)}`, authorisationId: `obauth_${'0'.repeat(32)}` } },
    { prefix: '/api/v1/open-banking/sca/', params: { authorisationId: `obauth_${'0'.repeat(32)}` } },
    { prefix: '/open-banking/sca/', params: { authorisationId: `obauth_${'0'.repeat(32)}` } },
    { prefix: '/api/v1/open-banking/my/consents/', params: { consentId: `consent_${'0'.repeat(32)}` } },
    { prefix: '/api/v1/open-banking/psd2/v1/payments/', params: { paymentProduct: 'sepa-credit-transfers', paymentId: `obp_${'0'.repeat(32)}`, authorisationId: `obauth_${'0'.repeat(32)}` } },
    { prefix: '/api/v1/interledger/quotes/', params: { id: ilpQuote.id ?? ilpQuote.quote_id } },
    { prefix: '/api/v1/interledger/payments/', params: { id: ilpPayment.id ?? ilpPayment.payment_id } },
    ...(rail ? [{ prefix: '/api/v1/payment-rails/payments/', params: { id: rail.id ?? rail.payment_id } }] : []),
  );
  aIds.add(basketBuy);
  // A MiFID II report of A's (a stored row), and a report request naming A's buy: another user or environment gets 404.
  const mifidReport = newId('mfr');
  await getPool().query(
    `INSERT INTO mifid_reports (id, environment, user_id, transaction_id, transaction_kind, report_type, jurisdiction, transaction_reference_number, status, xml, xsd_validated, trade_executed_at, deadline_at)
     VALUES ($1, 'sandbox', $2, $3, 'basket_buy', 'NEWT', 'LU', 'GBUYMATRIX', 'validated', '<BizData/>', true, now(), now() + interval '1 day')`,
    [mifidReport, a.userId, basketBuy],
  );
  fixtures.push({ prefix: '/api/v2/regtech/mifid/reports/', params: { id: mifidReport } });
  aIds.add(mifidReport);
  CROSS_BODIES['POST /api/v2/regtech/mifid/reports'] = { transaction_id: basketBuy, report_type: 'NEWT', jurisdiction: 'LU', client: { lei: 'HWUPKR0MPOU8FGXBT394' } };
  // A's mobile records (stored rows; tests/mobile makes real ones): a payment intent to a third
  // customer, its receipt id, a notification and a device; the P2P route reads A's transfer.
  const carol = await createTestUser();
  const intentId = newId('pi');
  await getPool().query(
    `INSERT INTO payment_intents (id, environment, user_id, payee_user_id, recipient, amount, currency, status, requires_passkey, amount_usd, workflow_id, expires_at)
     VALUES ($1, 'sandbox', $2, $3, $4, 1, 'USD', 'requires_confirmation', false, 1, 'payment-intent-' || $1, now() + interval '1 hour')`,
    [intentId, a.userId, carol.userId, carol.email],
  );
  const notificationId = newId('ntf');
  await getPool().query(`INSERT INTO notifications (id, user_id, environment, event_id, event_type, title, body) VALUES ($1, $2, 'sandbox', $3, 'transfer.completed', 't', 'b')`, [notificationId, a.userId, newId('evt')]);
  const deviceId = newId('dev');
  await getPool().query(`INSERT INTO mobile_devices (id, user_id, environment, platform, push_token) VALUES ($1, $2, 'sandbox', 'ios', $3)`, [deviceId, a.userId, `matrix-token-${deviceId}`]);
  fixtures.push(
    { prefix: '/api/v2/mobile/payments/intents/', params: { id: intentId } },
    { prefix: '/api/v2/mobile/receipts/', params: { id: `rcpt_${intentId}` } },
    { prefix: '/api/v2/mobile/transfers/p2p/', params: { id: ledger.transfer } },
    { prefix: '/api/v2/mobile/notifications/', params: { id: notificationId } },
    { prefix: '/api/v2/mobile/devices/', params: { id: deviceId } },
  );
  for (const id of [intentId, notificationId, deviceId]) aIds.add(id);
  // A passkey of A's (a stored row; tests/mobile registers real ones).
  const passkey = newId('pk');
  const passkeyCredential = `cred${newId('x').slice(2)}`;
  await getPool().query(
    `INSERT INTO passkey_credentials (id, user_id, credential_id, user_handle, name, public_key, device_type, aaguid)
     VALUES ($1, $2, $3, 'matrix-handle', 'matrix', '\\x00', 'multiDevice', '00000000-0000-0000-0000-000000000000')`,
    [passkey, a.userId, passkeyCredential],
  );
  fixtures.push({ prefix: '/api/v2/mobile/auth/passkeys/', params: { id: passkey } });
  // A's x402 payer wallet and agent key (stored rows; tests/x402 registers real ones by signature) and an SMS message of A's.
  const walletAddress = '0x7e5f4552091a69125d5dfcb7b8c2659029395bdf';
  await getPool().query(`INSERT INTO x402_wallets (id, environment, address, user_id, account_id) VALUES ($1, 'sandbox', $2, $3, $4)`, [newId('wal'), walletAddress, a.userId, account]);
  const agentKey = await keyFor(a, { agent: true });
  const smsId = newId('sms');
  await getPool().query(
    `INSERT INTO sms_messages (id, environment, owner_user_id, payer, payment_key, destination, country_code, sender, body, parts, encoding, price_usdc, status, payment_status, workflow_id)
     VALUES ($1, 'sandbox', $2, $3, $1, '+4915112345678', 'DE', 'Matrix', 'hello', 1, 'GSM-7', 81000, 'sent', 'settled', 'sms-send-' || $1)`,
    [smsId, a.userId, walletAddress],
  );
  fixtures.push(
    { prefix: '/api/v2/x402/wallets/', params: { address: walletAddress } },
    { prefix: '/api/v2/x402/spending-limits/payers/', params: { address: walletAddress } },
    { prefix: '/api/v2/x402/spending-limits/agents/', params: { key_id: agentKey.id } },
    { prefix: '/api/v2/x402/endpoints/', params: { id: `x402ep_${'0'.repeat(32)}` } },
    { prefix: '/api/v1/sms/status/', params: { messageId: smsId } },
  );
  for (const id of [smsId, agentKey.id]) aIds.add(id);
  BODIES['PUT /api/v2/x402/spending-limits/payers/:address'] = { per_request_max: '1', daily_max: '2' };
  BODIES['PUT /api/v2/x402/spending-limits/agents/:key_id'] = { per_request_max: '1', daily_max: '2' };
  // Operators' maintenance windows: any id fills the path (a missing one is 404).
  fixtures.push({ prefix: '/api/v1/operators/maintenance/', params: { id: `mw_${'0'.repeat(32)}` } });
  // A's OAuth client (tests/oauth).
  const oauthClient = (await create('/api/v2/oauth/clients', { name: 'matrix app', client_type: 'public', redirect_uris: ['https://app.example.test/cb'], scopes: ['read'] })).client_id as string;
  fixtures.push({ prefix: '/api/v2/oauth/clients/', params: { id: oauthClient } });
  aIds.add(oauthClient);
  // Public (the link's signature is the credential): any id fills the path.
  fixtures.push({ prefix: '/api/v2/partner/sdk/packages/', params: { id: `sdkp_${'0'.repeat(32)}` } });
  aIds.add(passkey);
  aIds.add(passkeyCredential);
  for (const v of [account, other, dep.id, dep.transaction_id, ledger.transfer, apiKey.id, webhook.id, ilpQuote.id, ilpPayment.id, rail?.id, entryId, ...Object.values(ids)]) {
    if (typeof v === 'string' && v.length > 0) aIds.add(v);
  }
}, 120_000);

afterAll(async () => {
  await w?.stop();
  await t?.close();
});

/** Bridge transfer, swap, flash loan, cross-chain swap and webhook delivery rows owned by A (sandbox). */
async function seedRows(x: Record<'userId' | 'account' | 'entryId' | 'webhookId' | 'bridgeQuote' | 'swapQuote' | 'bridge' | 'swap' | 'flash' | 'xswap' | 'delivery', string>) {
  const pool = getPool();
  const wallet = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  await pool.query(
    `INSERT INTO bridge_transfers (id, environment, user_id, account_id, quote_id, protocol, source_chain, destination_chain, token, destination_token,
       asset_code, amount, fee_amount, receive_amount, min_receive_amount, slippage_tolerance, sender_address, recipient_address, status, workflow_id,
       deadline_at, estimated_completion_at)
     VALUES ($1, 'sandbox', $2, $3, $4, 'layerzero', 'ethereum', 'arbitrum', 'USDC', 'USDC', 'USDC', 1, 0, 1, 1, 0.005, $5, $5, 'pending', $1,
       now() + interval '1 hour', now() + interval '1 hour')`,
    [x.bridge, x.userId, x.account, x.bridgeQuote, wallet],
  );
  await pool.query(
    `INSERT INTO defi_swaps (id, environment, user_id, account_id, quote_id, chain, token_in, token_out, asset_in, asset_out, dex, route, amount_in,
       expected_output, minimum_output, wallet_address, router_address, deadline_at, status, workflow_id)
     VALUES ($1, 'sandbox', $2, $3, $4, 'arbitrum', 'USDC', 'WETH', 'USDC', 'WETH', 'uniswap_v3', '[]', 1, 1, 1, $5, $5, now() + interval '1 hour', 'pending', $1)`,
    [x.swap, x.userId, x.account, x.swapQuote, wallet],
  );
  await pool.query(
    `INSERT INTO defi_flash_loans (id, environment, user_id, account_id, chain, lending_pool_id, token, asset_code, amount, fee, operations, final_amount,
       network_fee, profit, entry_id, workflow_id)
     VALUES ($1, 'sandbox', $2, $3, 'arbitrum', 'arbitrum-aave-usdc', 'USDC', 'USDC', 1, 0, '[]', 1, 0, 0, $4, $1)`,
    [x.flash, x.userId, x.account, x.entryId],
  );
  await pool.query(
    `INSERT INTO defi_crosschain_swaps (id, environment, user_id, account_id, source_chain, destination_chain, from_token, to_token, amount, slippage_bps, status, workflow_id)
     VALUES ($1, 'sandbox', $2, $3, 'ethereum', 'arbitrum', 'USDC', 'WETH', 1, 100, 'pending', $1)`,
    [x.xswap, x.userId, x.account],
  );
  await pool.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, payload, workflow_id, event_occurred_at)
     VALUES ($1, $2, $3, 'account.created', '{}', $1, now())`,
    [x.delivery, x.webhookId, newId('evt')],
  );
}

function fill(route: Route): string {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  if (names.length === 0) return route.path;
  const fx = fixtures.filter((f) => route.path.startsWith(f.prefix)).sort((x, y) => y.prefix.length - x.prefix.length)[0];
  let url = route.path;
  for (const n of names) {
    const v = fx?.params[n];
    if (!v) throw new Error(`add a fixture for ${key(route)} (path parameter :${n})`);
    url = url.replace(`:${n}`, encodeURIComponent(v));
  }
  return url;
}

/** A's ids in a response, other than those the request itself carried (a 404 may echo the id asked for). */
const leaks = (body: string, sent: string) => [...aIds].filter((id) => body.includes(id) && !sent.includes(id));

/**
 * What is wrong when a caller who is not A (another user, or A's key of the other environment)
 * calls a route on A's resources: anything but 404 (a body naming a missing resource may be a 422
 * ..._NOT_FOUND), or an answer carrying A's ids. `except`: A's ids this caller may see.
 */
async function notReached(r: Route, who: string, headers: Record<string, string>, except: string[] = []): Promise<string[]> {
  const url = fill(r);
  const payload = r.method === 'GET' ? undefined : (BODIES[key(r)] ?? CROSS_BODIES[key(r)] ?? {});
  const res = await call(r.method, url, headers, payload);
  if (PARTNER_ROWS.includes(key(r))) {
    return res.statusCode !== 401 || res.json().errors?.[0]?.code !== 'PARTNER_KEY_INVALID' ? [`${who} ${key(r)} -> ${res.statusCode} ${res.body.slice(0, 160)}`] : [];
  }
  if (USER_SCOPED.includes(key(r)) && who === 'production key') return res.statusCode >= 300 ? [`${who} ${key(r)} -> ${res.statusCode} ${res.body.slice(0, 160)}`] : [];
  const wrong: string[] = [];
  const found = leaks(res.body, url + JSON.stringify(payload ?? '')).filter((id) => !except.includes(id));
  if (found.length > 0) wrong.push(`${who} ${key(r)} -> ${res.statusCode} leaks ${found.join(', ')}`);
  // A body naming a missing resource may be a 422 ..._NOT_FOUND (as for a quote id that does not exist).
  const notFound = res.statusCode === 404 || (key(r) in CROSS_BODIES && res.statusCode === 422 && /_NOT_FOUND$/.test(res.json().errors?.[0]?.code ?? ''));
  if (ENVIRONMENT_SCOPED.includes(key(r)) && who !== 'production key') {
    if (res.statusCode < 400 || res.statusCode >= 500 || res.statusCode === 403) wrong.push(`${who} ${key(r)} -> ${res.statusCode} ${res.body.slice(0, 160)}`);
    return wrong;
  }
  if ((url !== r.path || key(r) in CROSS_BODIES) && !notFound) wrong.push(`${who} ${key(r)} -> ${res.statusCode} ${res.body.slice(0, 160)}`);
  return wrong;
}

describe('authorization matrix', () => {
  it('covers every registered route', () => {
    const routes = routesOf(t.app);
    expect(routes.length).toBeGreaterThan(60);
    for (const op of OPERATOR_ONLY) expect(routes.map(key), op).toContain(op);
    // Every path parameter has a fixture.
    const missing: string[] = [];
    for (const r of routes) {
      try {
        fill(r);
      } catch (e) {
        missing.push((e as Error).message);
      }
    }
    expect(missing).toEqual([]);
  });

  it('no credential: 401 on every route but the public ones', async () => {
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r)) continue;
      const res = await call(r.method, fill(r));
      if (res.statusCode !== 401) wrong.push(`${key(r)} -> ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it('expired, revoked and wrong-IP keys: 401, 401, 403', async () => {
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r)) continue;
      for (const [cred, status] of [['expired', 401], ['revoked', 401], ['wrongIp', 403]] as const) {
        const res = await call(r.method, fill(r), creds[cred], r.method === 'GET' ? undefined : {});
        if (res.statusCode !== status) wrong.push(`${cred} ${key(r)} -> ${res.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('read-only key: 403 on every write, never 403 on a read (or on a POST that needs only read)', async () => {
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r)) continue;
      const operatorOnly = OPERATOR_ONLY.includes(key(r));
      const headers = operatorOnly ? creds.operatorReadOnly : creds.readOnly;
      const res = await call(r.method, fill(r), headers, r.method === 'GET' ? undefined : {});
      const expected403 = r.method !== 'GET' && !READ_PERMISSION_POSTS.includes(key(r));
      if ((res.statusCode === 403) !== expected403) wrong.push(`${key(r)} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
      if (expected403 && res.json().errors?.[0]?.code !== 'INSUFFICIENT_PERMISSIONS') wrong.push(`${key(r)} -> ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('operator-only routes: 403 ADMIN_REQUIRED for a customer, and no other route is', async () => {
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r)) continue;
      const res = await call(r.method, fill(r), b.headers, r.method === 'GET' ? undefined : {});
      const adminRequired = res.statusCode === 403 && res.json().errors?.[0]?.code === 'ADMIN_REQUIRED';
      if (adminRequired !== OPERATOR_ONLY.includes(key(r))) wrong.push(`${key(r)} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("another user and another environment: 404 on A's resources, and no response carries A's ids", async () => {
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r) || OPERATOR_ONLY.includes(key(r))) continue;
      for (const [who, headers] of [['another user', b.headers], ['production key', creds.production]] as const) wrong.push(...(await notReached(r, who, headers)));
    }
    expect(wrong).toEqual([]);
  });

  it("a partner's key reaches its partner's modules only: 403 MODULE_NOT_ENABLED on exactly the routes of other modules", async () => {
    const onboarded = await call('POST', '/api/v1/partner/onboard', operator.headers, {
      organization_name: 'Matrix Partner',
      contact_email: 'ops@matrix-partner.example',
      tier: 'growth',
      modules: ['accounts'],
      rate_limit_override: 100_000,
    });
    expect(onboarded.statusCode, onboarded.body).toBe(201);
    const partnerKey = bearer(onboarded.json().data.api_credentials.sandbox_key);
    // Each route's module is its first OpenAPI tag's (domain/partner/modules.ts), as the gate reads it.
    const tagOf = new Map<string, string[] | undefined>();
    const doc = t.app.swagger() as { paths: Record<string, Record<string, { tags?: string[] }>> };
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [m, op] of Object.entries(ops)) tagOf.set(`${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`, op.tags);
    }
    const wrong: string[] = [];
    let refusedSome = 0;
    for (const r of routesOf(t.app)) {
      if (isPublic(r) || OPERATOR_ONLY.includes(key(r))) continue;
      const module = moduleOfTags(tagOf.get(key(r)));
      const res = await call(r.method, fill(r), partnerKey, r.method === 'GET' ? undefined : {});
      const refused = res.statusCode === 403 && res.json().errors?.[0]?.code === 'MODULE_NOT_ENABLED';
      if (refused) refusedSome++;
      if (refused !== (module !== null && module !== 'accounts')) wrong.push(`${key(r)} (module ${module}) -> ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
    expect(refusedSome).toBeGreaterThan(50);
  });

  it('an agent key administers nothing that widens it: 403 AGENT_NOT_PERMITTED on exactly key creation and rotation and spending-limit changes and removals', async () => {
    const agent = await keyFor(a, { agent: true });
    const AGENT_REFUSED = [
      'POST /api/v2/api-keys',
      'POST /api/v2/api-keys/:id/rotate',
      'PUT /api/v2/x402/spending-limits/agents/:key_id',
      'PUT /api/v2/x402/spending-limits/payers/:address',
      // Removing a limit lifts it.
      'DELETE /api/v2/x402/spending-limits/agents/:key_id',
      'DELETE /api/v2/x402/spending-limits/payers/:address',
    ];
    const bodies: Record<string, unknown> = { ...BODIES, 'POST /api/v2/api-keys': { name: 'child', permissions: ['read', 'write'] } };
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r) || OPERATOR_ONLY.includes(key(r)) || r.method === 'GET') continue;
      const res = await call(r.method, fill(r), agent.headers, bodies[key(r)] ?? {});
      const refused = res.statusCode === 403 && res.json().errors?.[0]?.code === 'AGENT_NOT_PERMITTED';
      if (refused !== AGENT_REFUSED.includes(key(r))) wrong.push(`${key(r)} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("a group member sees the group and its loans but no other member's account, and cannot act as the leader, the borrower or an operator", async () => {
    const group = fixtures.find((f) => f.prefix === '/api/v1/microfinance/groups/')!.params.id;
    const loan = fixtures.find((f) => f.prefix === '/api/v1/microfinance/loans/')!.params.id;
    const MF = '/api/v1/microfinance';
    // The member's own rights on A's group (their answer stands: accepting again is the same answer).
    const MEMBER: Record<string, { status: number; code?: string; body?: unknown }> = {
      [`GET ${MF}/groups/:id`]: { status: 200 },
      [`GET ${MF}/groups/:id/loans`]: { status: 200 },
      [`GET ${MF}/loans/:id`]: { status: 200 },
      [`GET ${MF}/loans/:id/schedule`]: { status: 200 },
      [`POST ${MF}/groups/:id/accept`]: { status: 200 },
      [`POST ${MF}/groups/:id/decline`]: { status: 409, code: 'MF_INVALID_STATE' },
      // Applying for the leader is the leader's (or an operator's) right.
      [`POST ${MF}/groups/:id/loans`]: { status: 403, code: 'MF_LEADER_REQUIRED', body: { product_id: groupProduct, principal: '1.00', user_id: a.userId } },
      [`POST ${MF}/loans/:id/repayments`]: { status: 403, code: 'MF_BORROWER_REQUIRED' },
    };
    const wrong: string[] = [];
    for (const r of routesOf(t.app)) {
      if (isPublic(r)) continue;
      const rule = MEMBER[key(r)];
      if (!rule && !OPERATOR_ONLY.includes(key(r))) {
        wrong.push(...(await notReached(r, 'group member', groupMember.headers, [group, loan])));
        continue;
      }
      const url = fill(r);
      const payload = r.method === 'GET' ? undefined : (rule?.body ?? BODIES[key(r)] ?? {});
      const res = await call(r.method, url, groupMember.headers, payload);
      const expected = rule ?? { status: 403, code: 'ADMIN_REQUIRED' };
      const found = leaks(res.body, url + JSON.stringify(payload ?? '')).filter((id) => id !== group && id !== loan);
      if (res.statusCode !== expected.status || (expected.code && res.json().errors?.[0]?.code !== expected.code) || found.length > 0) {
        wrong.push(`${key(r)} -> ${res.statusCode} ${found.length ? `leaks ${found.join(', ')} ` : ''}${res.body.slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("a TPP's certificate reaches only the PSD2 routes its roles allow, and no customer route", async () => {
    // The Berlin Group routes (under BG_PREFIX) and the platform's own enveloped rows beside them.
    const AIS = /^\/api\/v1\/open-banking\/(psd2\/v1\/)?(consents|accounts)(\/|$)/;
    const PIS = /^\/api\/v1\/open-banking\/(psd2\/v1\/)?payments(\/|$)/;
    const wrong: string[] = [];
    let reached = 0;
    for (const [roles, allowed] of [[['PSP_AI'], AIS], [['PSP_PI'], PIS]] as Array<[Psd2Role[], RegExp]>) {
      const issued = await issueSandboxCertificate({ name: `Matrix ${roles.join(' ')}`, roles });
      await registerTpp(issued.certificate);
      const cert = { [TPP_CERTIFICATE_HEADER]: encodeURIComponent(issued.certificate) };
      for (const r of routesOf(t.app)) {
        const psd2 = AIS.test(r.path) || PIS.test(r.path);
        if (!psd2 && isPublic(r)) continue;
        const res = await call(r.method, fill(r), { ...cert, 'x-request-id': randomUUID() }, r.method === 'GET' ? undefined : {});
        const code = res.json().errors?.[0]?.code;
        if (!psd2) {
          // The certificate is no credential for the customer API (nor for deciding an SCA as the customer).
          if (res.statusCode !== 401) wrong.push(`${roles} ${key(r)} -> ${res.statusCode} ${res.body.slice(0, 120)}`);
          continue;
        }
        const refused = res.statusCode === 403 && code === 'ROLE_INVALID';
        if (refused === allowed.test(r.path) || res.statusCode === 401) wrong.push(`${roles} ${key(r)} -> ${res.statusCode} ${code}`);
        if (!refused) reached++;
      }
    }
    expect(wrong).toEqual([]);
    expect(reached).toBeGreaterThan(15);
  });
});
