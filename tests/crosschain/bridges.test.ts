import { quietTemporalRuntime } from '../helpers/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createActivities } from '../../activities';
import { chainAdapterFor } from '../../domain/chains/adapter';
import { custodyAddress } from '../../domain/chains/custody';
import { getPool } from '../../domain/db/pool';
import { initiateBridgeTransfer } from '../../domain/crosschain';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { getEntry, systemBalance, trialBalance } from '../../domain/ledger';
import { findTemporalTestServer } from '../../domain/temporal/binaries';
import { closeTemporal } from '../../domain/temporal/client';
import { ALL_SEARCH_ATTRIBUTES, SA } from '../../domain/temporal/search-attributes';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { newId } from '../../domain/platform/ids';
import { refusalsOf, tenantCustomers, type Probe } from '../helpers/tenants';

// Quiet before any Temporal environment or worker exists (expected failures log at WARN).
quietTemporalRuntime();

let env: TestWorkflowEnvironment;
let t: TestApp;
let worker: Worker;
let running: Promise<void>;

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: findTemporalTestServer()! } } });
  // The time-skipping server starts without the platform's search attributes.
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(ALL_SEARCH_ATTRIBUTES.map((k) => [k.name, k.type === 'KEYWORD_LIST' ? 7 : 2])),
  });
  t = await createTestApp();
  process.env.TEMPORAL_ADDRESS = env.address;
  process.env.TEMPORAL_TASK_QUEUE = 'crosschain-test';
  await closeTemporal();
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue: 'crosschain-test', workflowBundle: { code: inject('workflowBundleCode') }, activities: createActivities() });
  running = worker.run();
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await t?.close();
  await env?.teardown();
});

// EIP-55 test vectors as customer wallets; a Solana key.
const EVM_A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const EVM_B = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const SOL = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

const call = (method: 'GET' | 'POST', url: string, payload?: unknown, headers = t.headers) => t.app.inject({ method, url, headers, ...(payload ? { payload: payload as object } : {}) });

async function fundedAccount(amount: string, asset: string, headers = t.headers): Promise<string> {
  const id = (await call('POST', '/api/v2/accounts', { name: 'crypto' }, headers)).json().data.uuid;
  expect((await call('POST', `/api/v2/accounts/${id}/deposit`, { amount, asset_code: asset }, headers)).statusCode).toBe(201);
  return id;
}

async function books(accountId: string, asset: string): Promise<Record<string, { total: string; available: string; reserved: string }>> {
  const { rows } = await getPool().query(
    `SELECT chain, ledger_balance_json(la) AS b FROM ledger_accounts la WHERE account_id = $1 AND asset_code = $2 ORDER BY chain`,
    [accountId, asset],
  );
  return Object.fromEntries(rows.map((r) => [r.chain || 'home', { total: r.b.total_balance, available: r.b.available_balance, reserved: r.b.reserved_balance }]));
}

async function quote(body: Record<string, unknown>, headers = t.headers) {
  const r = await call('POST', '/api/v1/crosschain/bridge/quote', body, headers);
  return r;
}

/** Runs the workflow to its end on skipped time, then reads the transfer through the API. */
async function finish(id: string, workflowId: string, headers = t.headers) {
  await env.client.workflow.getHandle(workflowId).result();
  return (await call('GET', `/api/v1/crosschain/bridge/${id}`, undefined, headers)).json().data;
}

async function expectBalancedLedger() {
  expect((await trialBalance({ environment: 'sandbox' })).balanced).toBe(true);
}

describe('bridge quotes and fees', () => {
  it('quotes the best protocol with the others as alternatives, fees in the token, and an expiry', async () => {
    const r = await quote({ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '1000' });
    expect(r.statusCode).toBe(201);
    const q = r.json().data;
    // wormhole: 0.5 USD relayer fee; layerzero: 0.06 % + 0.4; axelar: 10 (ethereum on one end).
    expect(q).toMatchObject({
      bridge_protocol: 'wormhole',
      source_chain: 'ethereum',
      destination_chain: 'arbitrum',
      token: 'USDC',
      input_amount: '1000.000000',
      fee_amount: '0.500000',
      estimated_receive_amount: '999.500000',
      fee_currency: 'USDC',
      exchange_rate: '0.99950000',
    });
    // 1 block + 64 x 12 s finality + 20 s VAA + 10 s relay + 1 arbitrum block.
    expect(q.estimated_duration_seconds).toBe(Math.ceil(12 + 768 + 20 + 10 + 0.25));
    expect(q.alternative_quotes).toEqual([
      { bridge_protocol: 'layerzero', estimated_receive_amount: '999.000000', fee_amount: '1.000000', estimated_duration_seconds: Math.ceil(12 + 15 * 12 + 30 + 10 + 0.25) },
      { bridge_protocol: 'axelar', estimated_receive_amount: '990.000000', fee_amount: '10.000000', estimated_duration_seconds: Math.ceil(12 + 768 + 40 + 20 + 0.25) },
    ]);
    const ttl = (Date.parse(q.quote_expires_at) - Date.parse(q.created_at)) / 1000;
    expect(ttl).toBe(120);

    const pref = (await quote({ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '1000', preferred_bridge: 'axelar' })).json().data;
    expect(pref).toMatchObject({ bridge_protocol: 'axelar', fee_amount: '10.000000' });
    expect(pref.alternative_quotes.map((a: any) => a.bridge_protocol)).toEqual(['wormhole', 'layerzero']);
  });

  it('wormhole carries 8 decimals: WETH to solana loses the dust to the fee; USDC on bsc has 18 decimals', async () => {
    const q = (await quote({ source_chain: 'ethereum', destination_chain: 'solana', token: 'WETH', amount: '1.123456789123456789', preferred_bridge: 'wormhole' })).json().data;
    // 0.25 USD relayer fee at 3400 USD/WETH, rounded up at 18 places; the received amount is cut to 8 decimals.
    expect(q.estimated_receive_amount).toBe('1.123383250000000000');
    expect(q.fee_amount).toBe('0.000073539123456789');
    expect(q.fee_breakdown).toMatchObject({ route_fee_usd: '0.25', route_fee: '0.000073529411764706', rounding: '0.000000009711692083' });
  });

  it('GET /api/v2/crosschain/bridge/fees lists every protocol with its fee, time and limits, unsupported ones with the reason', async () => {
    const r = await call('GET', '/api/v2/crosschain/bridge/fees?from=polygon&to=solana&token=USDC&amount=250');
    expect(r.statusCode).toBe(200);
    const d = r.json().data;
    expect(d).toMatchObject({ source_chain: 'polygon', destination_chain: 'solana', asset_code: 'USDC', amount: '250.000000', recommended: 'wormhole' });
    const byId = Object.fromEntries(d.protocols.map((p: any) => [p.protocol, p]));
    expect(byId.wormhole).toMatchObject({ supported: true, fee_amount: '0.250000', estimated_receive_amount: '249.750000', source_mechanism: 'bridge_burn', destination_mechanism: 'bridge_mint' });
    expect(byId.layerzero).toMatchObject({ supported: true, fee_amount: '0.750000', source_mechanism: 'bridge_lock', destination_mechanism: 'bridge_release', min_amount: '5' });
    expect(byId.axelar).toMatchObject({ supported: false, reason: 'axelar does not serve solana', fee_amount: null });
    // LayerZero waits 512 polygon confirmations, wormhole only polygon finality (32): faster here.
    expect(byId.wormhole.estimated_duration_seconds).toBeLessThan(byId.layerzero.estimated_duration_seconds);
  });

  it('refuses bad input with a 422 and a pointer', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ source_chain: 'dogechain', destination_chain: 'arbitrum', token: 'USDC', amount: '10' }, 'UNKNOWN_CHAIN', '/source_chain'],
      [{ source_chain: 'ethereum', destination_chain: 'tron', token: 'USDC', amount: '10' }, 'UNKNOWN_CHAIN', '/destination_chain'],
      [{ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'SHIB', amount: '10' }, 'UNKNOWN_TOKEN', '/token'],
      [{ source_chain: 'ethereum', destination_chain: 'ethereum', token: 'USDC', amount: '10' }, 'SAME_CHAIN', '/destination_chain'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'ETH', amount: '1' }, 'UNSUPPORTED_ROUTE', '/destination_chain'],
      [{ source_chain: 'ethereum', destination_chain: 'bitcoin', token: 'WBTC', amount: '1' }, 'UNSUPPORTED_ROUTE', '/destination_chain'],
      [{ source_chain: 'ethereum', destination_chain: 'solana', token: 'USDC', amount: '100', preferred_bridge: 'axelar' }, 'UNSUPPORTED_ROUTE', '/preferred_bridge'],
      [{ source_chain: 'ethereum', destination_chain: 'base', token: 'DAI', amount: '100', preferred_bridge: 'layerzero' }, 'UNSUPPORTED_ROUTE', '/preferred_bridge'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: '4', preferred_bridge: 'layerzero' }, 'AMOUNT_BELOW_MINIMUM', '/amount'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: '0.4' }, 'AMOUNT_BELOW_MINIMUM', '/amount'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: '3000000', preferred_bridge: 'layerzero' }, 'AMOUNT_ABOVE_LIQUIDITY', '/amount'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: '10.1234567' }, 'AMOUNT_PRECISION', '/amount'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: 10 }, 'VALIDATION_ERROR', '/amount'],
      [{ source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: '10', preferred_bridge: 'hop' }, 'VALIDATION_ERROR', '/preferred_bridge'],
    ];
    for (const [body, code, pointer] of cases) {
      const r = await quote(body);
      expect({ body, status: r.statusCode, code: r.json().errors?.[0]?.code, pointer: r.json().errors?.[0]?.source?.pointer }).toEqual({ body, status: 422, code, pointer });
    }
    const fees = await call('GET', '/api/v2/crosschain/bridge/fees?from=ethereum&to=nowhere&token=USDC&amount=5');
    expect(fees.statusCode).toBe(422);
    expect(fees.json().errors[0]).toMatchObject({ code: 'UNKNOWN_CHAIN', source: { pointer: '/to' } });
  });
});

describe('bridge transfers', () => {
  it('wormhole happy path: USDC ethereum -> arbitrum; hashes appear, books move, fee to revenue, events match the catalog', async () => {
    const acct = await fundedAccount('500.00', 'USDC');
    const feeBefore = await systemBalance('sandbox', 'USDC', 'fee_revenue');
    const q = (await quote({ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '200', preferred_bridge: 'wormhole' })).json().data;
    // To the account's own custody address on arbitrum (sent lower-case; stored checksummed).
    const own = custodyAddress(acct, 'arbitrum');
    const r = await call('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: q.quote_id, sender_address: EVM_A, recipient_address: own.toLowerCase(), slippage_tolerance: 0.01, deadline_minutes: 60 });
    expect(r.statusCode).toBe(201);
    const created = r.json().data;
    expect(created).toMatchObject({
      status: 'pending',
      quote_id: q.quote_id,
      source_tx_hash: null,
      destination_tx_hash: null,
      bridge_protocol: 'wormhole',
      amount: '200.000000',
      sender_address: EVM_A,
      recipient_address: own,
      account_id: acct,
      min_receive_amount: '197.505000',
    });
    expect(created.bridge_tx_id).toMatch(/^btx_[0-9a-f]{32}$/);
    const done = await finish(created.bridge_tx_id, created.workflow_id);
    expect(done).toMatchObject({ status: 'completed', source_tx_kind: 'bridge_lock', destination_tx_kind: 'bridge_mint', failure: null, recovery_required: false });
    expect(done.source_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.destination_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.attestation).toMatchObject({ kind: 'guardian_vaa', guardian_signatures: 13, emitter_chain: 2 });
    expect(done.attestation.id).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.history.map((h: any) => h.status)).toEqual(['pending', 'validated', 'reserved', 'source_submitted', 'source_finalized', 'attested', 'destination_submitted', 'completed']);

    // The chain legs exist on the sandbox chains, final on the source.
    const adapter = chainAdapterFor('sandbox');
    const src = await adapter.getTransaction('ethereum', done.source_tx_hash, new Date(Date.now() + 7 * 86_400_000));
    expect(src?.status).toBe('finalized');
    expect(await adapter.getTransaction('arbitrum', done.destination_tx_hash, new Date(Date.now() + 7 * 86_400_000))).toMatchObject({ status: 'finalized' });

    expect(await books(acct, 'USDC')).toEqual({
      home: { total: '300.000000', available: '300.000000', reserved: '0.000000' },
      arbitrum: { total: '199.500000', available: '199.500000', reserved: '0.000000' },
    });
    const bal = (await call('GET', `/api/v2/accounts/${acct}/balances`)).json().data.balances[0];
    expect(bal).toMatchObject({ asset_code: 'USDC', total_balance: '499.500000' });
    expect(new Number(await systemBalance('sandbox', 'USDC', 'fee_revenue')).valueOf() - new Number(feeBefore).valueOf()).toBeCloseTo(0.5, 6);
    const { rows } = await getPool().query(`SELECT reservation_entry_id, settlement_entry_id FROM bridge_transfers WHERE id = $1`, [created.bridge_tx_id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('posted');
    const settle = (await getEntry(rows[0].settlement_entry_id))!;
    expect(settle.lines.map((l) => [l.direction, l.amount])).toEqual([
      ['debit', '200.000000'],
      ['credit', '199.500000'],
      ['credit', '0.500000'],
    ]);
    const transit = await getPool().query(`SELECT credits_posted - debits_posted AS bal FROM ledger_accounts WHERE code = 'bridge_in_transit:wormhole' AND asset_code = 'USDC' AND environment = 'sandbox'`);
    expect(Number(transit.rows[0].bal)).toBe(0);
    await expectBalancedLedger();

    // Events of the bridge (and the balance events of its books) are in the catalog's shape.
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validators = new Map(EVENT_CATALOG.map((e) => [e.type, ajv.compile(e.data_schema)]));
    const ev = await getPool().query<{ type: string; data: any }>(`SELECT type, data FROM platform_events WHERE aggregate_id IN ($1, $2) ORDER BY occurred_at`, [created.bridge_tx_id, acct]);
    for (const e of ev.rows) {
      const v = validators.get(e.type)!;
      expect(v(e.data), `${e.type}: ${ajv.errorsText(v.errors)}`).toBe(true);
    }
    expect(ev.rows.filter((e) => e.type.startsWith('bridge.')).map((e) => e.type)).toEqual(['bridge.initiated', 'bridge.completed']);
    expect(ev.rows.some((e) => e.type === 'account.balance_updated' && e.data.chain === 'arbitrum' && e.data.total_balance === '199.500000')).toBe(true);

    // Operators find the workflow by bridge id, account and status (search attributes).
    const sa = (await env.client.workflow.getHandle(created.workflow_id).describe()).typedSearchAttributes;
    expect(sa.get(SA.transferId)).toBe(created.bridge_tx_id);
    expect(sa.get(SA.accountIds)).toEqual([acct]);
    expect(sa.get(SA.businessStatus)).toBe('completed');
    expect(sa.get(SA.chain)).toBe('ethereum');
  });

  it('to an address outside the platform: the delivered amount leaves the customer\'s books for settlement, like a withdrawal', async () => {
    const acct = await fundedAccount('50.00', 'USDC');
    const settlementBefore = await systemBalance('sandbox', 'USDC', 'settlement');
    const q = (await quote({ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '20', preferred_bridge: 'wormhole' })).json().data;
    const r = await call('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: q.quote_id, account_id: acct, sender_address: EVM_A, recipient_address: EVM_B, slippage_tolerance: 0.01 });
    expect(r.statusCode, r.body).toBe(201);
    const created = r.json().data;
    expect(created).toMatchObject({ status: 'pending', recipient_address: EVM_B, account_id: acct });
    const done = await finish(created.bridge_tx_id, created.workflow_id);
    expect(done).toMatchObject({ status: 'completed', estimated_receive_amount: '19.500000', fee_amount: '0.500000' });
    // The chain delivered 19.5 to EVM_B ...
    expect(done.history.find((h: any) => h.status === 'destination_submitted').detail).toMatchObject({ amount: '19.500000', chain: 'arbitrum' });
    expect(await chainAdapterFor('sandbox').getTransaction('arbitrum', done.destination_tx_hash, new Date(Date.now() + 7 * 86_400_000))).not.toBeNull();
    // ... so the account holds 30 in total, no arbitrum book carries the delivered tokens, and the
    // platform's settlement account (money that left) grew by exactly what left.
    expect(await books(acct, 'USDC')).toEqual({ home: { total: '30.000000', available: '30.000000', reserved: '0.000000' } });
    const bal = (await call('GET', `/api/v2/accounts/${acct}/balances`)).json().data.balances[0];
    expect(bal).toMatchObject({ asset_code: 'USDC', total_balance: '30.000000', available_balance: '30.000000' });
    // Settlement is what the platform holds at the chains (an asset): what left reduced it.
    expect(Number(settlementBefore) - Number(await systemBalance('sandbox', 'USDC', 'settlement'))).toBeCloseTo(19.5, 6);
    const { rows } = await getPool().query(`SELECT settlement_entry_id FROM bridge_transfers WHERE id = $1`, [created.bridge_tx_id]);
    const settle = (await getEntry(rows[0].settlement_entry_id))!;
    expect(settle.metadata).toMatchObject({ delivered_outside_platform: true });
    expect(done.history.at(-1)).toMatchObject({ status: 'completed', detail: expect.objectContaining({ delivered_outside_platform: true }) });
    await expectBalancedLedger();
  });

  it('layerzero happy path through POST /api/v2/crosschain/bridge: ETH ethereum -> base, addresses from custody, lock and release', async () => {
    const acct = await fundedAccount('2', 'ETH');
    const r = await call('POST', '/api/v2/crosschain/bridge', { source_chain: 'ethereum', destination_chain: 'base', token: 'ETH', amount: '1.5', protocol: 'layerzero' });
    expect(r.statusCode).toBe(201);
    const created = r.json().data;
    expect(created).toMatchObject({ status: 'pending', bridge_protocol: 'layerzero', source_tx_hash: null, destination_tx_hash: null, quote: { bridge_protocol: 'layerzero', input_amount: '1.500000000000000000' } });
    expect(created.sender_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const done = await finish(created.bridge_tx_id, created.workflow_id);
    expect(done).toMatchObject({ status: 'completed', source_tx_kind: 'bridge_lock', destination_tx_kind: 'bridge_release', attestation: { kind: 'dvn_verification', src_eid: 30101, dst_eid: 30184 } });
    // 0.06 % of 1.5 ETH + 0.4 USD at 3400 USD/ETH.
    expect(done.fee_amount).toBe('0.001017647058823530');
    expect(await books(acct, 'ETH')).toEqual({
      home: { total: '0.500000000000000000', available: '0.500000000000000000', reserved: '0.000000000000000000' },
      base: { total: '1.498982352941176470', available: '1.498982352941176470', reserved: '0.000000000000000000' },
    });
    await expectBalancedLedger();
  });

  it('wormhole to solana: WETH arrives with 8 decimals at a base58 recipient; the dust stays with the fee', async () => {
    const acct = await fundedAccount('2', 'WETH');
    const q = (await quote({ source_chain: 'ethereum', destination_chain: 'solana', token: 'WETH', amount: '1.000000000123456789', preferred_bridge: 'wormhole' })).json().data;
    const created = (await call('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: q.quote_id, sender_address: EVM_A, recipient_address: SOL })).json().data;
    // About USD 3,400 leaving the platform: the Travel Rule needs a passing check first (travel-rule-gate.test.ts).
    const check = await call('POST', '/api/v1/regtech/travel-rule/check', {
      transfer_id: created.bridge_tx_id,
      originator: { name: 'Alice Example', account_number: EVM_A },
      beneficiary: { name: 'Bob Receiver', account_number: SOL, institution_name: 'Example VASP AG', institution_country: 'DE' },
      transfer_details: { amount: '1.000000000123456789', currency: 'WETH' },
      jurisdiction: 'FATF',
    });
    expect(check.json().data.is_compliant, check.body).toBe(true);
    const done = await finish(created.bridge_tx_id, created.workflow_id);
    expect(done).toMatchObject({ status: 'completed', destination_token: 'WETH', destination_tx_kind: 'bridge_mint', recipient_address: SOL });
    expect(done.destination_tx_hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
    // 0.25 USD at 3400 USD/WETH; 1.000000000123456789 - fee cut to 8 decimals.
    expect(done.estimated_receive_amount).toBe('0.999926470000000000');
    // SOL is not the account's custody address on solana: what was delivered left the platform.
    expect(await books(acct, 'WETH')).toEqual({ home: { total: '0.999999999876543211', available: '0.999999999876543211', reserved: '0.000000000000000000' } });
    await expectBalancedLedger();
  });

  it('two initiates racing for one quote: one transfer, one 422 QUOTE_ALREADY_USED', async () => {
    await fundedAccount('100.00', 'USDC');
    const q = (await quote({ source_chain: 'ethereum', destination_chain: 'base', token: 'USDC', amount: '10', preferred_bridge: 'wormhole' })).json().data;
    const body = { quote_id: q.quote_id, sender_address: EVM_A, recipient_address: EVM_B };
    const rs = await Promise.all([1, 2, 3].map(() => call('POST', '/api/v1/crosschain/bridge/initiate', body)));
    expect(rs.map((r) => r.statusCode).sort()).toEqual([201, 422, 422]);
    expect(rs.filter((r) => r.statusCode === 422).map((r) => r.json().errors[0].code)).toEqual(['QUOTE_ALREADY_USED', 'QUOTE_ALREADY_USED']);
    const ok = rs.find((r) => r.statusCode === 201)!.json().data;
    expect((await finish(ok.bridge_tx_id, ok.workflow_id)).status).toBe('completed');
  });

  it('axelar happy path: WBTC from the polygon book back to ethereum (burn then release)', async () => {
    const acct = await fundedAccount('0.5', 'WBTC');
    const out = (await call('POST', '/api/v2/crosschain/bridge', { source_chain: 'ethereum', destination_chain: 'polygon', token: 'WBTC', amount: '0.2', protocol: 'axelar' })).json().data;
    expect((await finish(out.bridge_tx_id, out.workflow_id)).status).toBe('completed');
    // 10 USD at 95000 USD/WBTC, rounded up to 8 places.
    expect(await books(acct, 'WBTC')).toMatchObject({ home: { total: '0.30000000' }, polygon: { total: '0.19989473' } });
    const back = (await call('POST', '/api/v2/crosschain/bridge', { source_chain: 'polygon', destination_chain: 'ethereum', token: 'WBTC', amount: '0.1', protocol: 'axelar' })).json().data;
    const done = await finish(back.bridge_tx_id, back.workflow_id);
    expect(done).toMatchObject({ status: 'completed', source_tx_kind: 'bridge_burn', destination_tx_kind: 'bridge_release', attestation: { kind: 'validator_votes' } });
    expect(await books(acct, 'WBTC')).toMatchObject({ home: { total: '0.39989473' }, polygon: { total: '0.09989473' } });
    await expectBalancedLedger();
  });

  // Sandbox magic amounts: .0401 source reverts, .0402 source dropped, .0403 relay stuck, .0404 destination reverts.
  const failures: Array<[string, string, string, boolean, number]> = [
    ['100.0401', 'SOURCE_REVERTED', 'source_submitted', false, 60],
    ['100.0402', 'SOURCE_DROPPED', 'source_submitted', false, 60],
    ['100.0403', 'DEADLINE_EXCEEDED', 'source_finalized', true, 20],
    ['100.0404', 'DESTINATION_REVERTED', 'destination_submitted', true, 60],
  ];
  for (const [amount, code, failedIn, recovery, deadline] of failures) {
    it(`${code}: the reservation is voided and the books are back where they started`, async () => {
      const acct = await fundedAccount('300.00', 'USDC');
      const q = (await quote({ source_chain: 'ethereum', destination_chain: 'optimism', token: 'USDC', amount, preferred_bridge: 'wormhole' })).json().data;
      const created = (await call('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: q.quote_id, sender_address: EVM_A, recipient_address: EVM_B, slippage_tolerance: 0.005, deadline_minutes: deadline })).json().data;
      const done = await finish(created.bridge_tx_id, created.workflow_id);
      expect(done).toMatchObject({ status: 'failed', failure: { code }, compensation: 'voided', recovery_required: recovery });
      const statuses = done.history.map((h: any) => h.status);
      expect(statuses.slice(-2)).toEqual(['compensation_executed', 'failed']);
      expect(done.history.at(-1).detail).toMatchObject({ failed_in: failedIn });
      if (code === 'DEADLINE_EXCEEDED') {
        expect(done.failure.reason).toContain('attestation');
        expect(Date.parse(done.failed_at)).toBeGreaterThan(0);
      }
      expect(done.destination_tx_hash === null).toBe(code !== 'DESTINATION_REVERTED');
      expect(done.source_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await books(acct, 'USDC')).toEqual({ home: { total: '300.000000', available: '300.000000', reserved: '0.000000' } });
      const { rows } = await getPool().query(`SELECT reservation_entry_id FROM bridge_transfers WHERE id = $1`, [created.bridge_tx_id]);
      expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('voided');
      const ev = await getPool().query(`SELECT type, data FROM platform_events WHERE aggregate_id = $1 AND type = 'bridge.failed'`, [created.bridge_tx_id]);
      expect(ev.rows[0].data).toMatchObject({ failure_code: code, compensation: 'voided' });
      await expectBalancedLedger();
    });
  }

  it('a quote that expires before the workflow runs (delayed start) fails it with nothing reserved (time-skipping clock)', async () => {
    const acct = await fundedAccount('100.00', 'USDC');
    const q = (await quote({ source_chain: 'ethereum', destination_chain: 'base', token: 'USDC', amount: '50' })).json().data;
    const transfer = await initiateBridgeTransfer({ userId: t.user.userId, environment: 'sandbox', quoteId: q.quote_id, senderAddress: EVM_A, recipientAddress: EVM_B, deadlineMinutes: 120, now: new Date() });
    // The start is delayed 3 minutes of workflow time (a backlog): the quote had 2 minutes left.
    await env.client.workflow.start('bridgeTransferWorkflow', {
      taskQueue: 'crosschain-test',
      workflowId: transfer.workflowId,
      args: [{ transferId: transfer.id }],
      startDelay: '3 minutes',
    });
    const done = await finish(transfer.id, transfer.workflowId);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'QUOTE_EXPIRED' }, compensation: null, recovery_required: false, source_tx_hash: null });
    expect(done.history.map((h: any) => h.status)).toEqual(['pending', 'failed']);
    expect(await books(acct, 'USDC')).toEqual({ home: { total: '100.000000', available: '100.000000', reserved: '0.000000' } });
  });

  it('initiate refuses an expired, used or foreign quote, bad addresses, a short deadline and missing funds', async () => {
    // A user of its own, so no other test's accounts can pay.
    const me = await createTestUser();
    const acct = await fundedAccount('100.00', 'USDC', me.headers);
    const body = (quoteId: string, extra: Record<string, unknown> = {}) => ({ quote_id: quoteId, sender_address: EVM_A, recipient_address: EVM_B, slippage_tolerance: 0.005, ...extra });
    const newQuote = async (extra: Record<string, unknown> = {}, headers = me.headers) =>
      (await quote({ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '20', preferred_bridge: 'wormhole', ...extra }, headers)).json().data.quote_id as string;
    const refused = async (payload: unknown, code: string, pointer: string, headers = me.headers) => {
      const r = await call('POST', '/api/v1/crosschain/bridge/initiate', payload, headers);
      expect({ status: r.statusCode, code: r.json().errors?.[0]?.code, pointer: r.json().errors?.[0]?.source?.pointer }).toEqual({ status: 422, code, pointer });
    };

    // Expired (a 1-second quote lifetime for this one quote).
    process.env.BRIDGE_QUOTE_TTL_SECONDS = '1';
    const short = await newQuote();
    delete process.env.BRIDGE_QUOTE_TTL_SECONDS;
    await new Promise((r) => setTimeout(r, 1100));
    await refused(body(short), 'QUOTE_EXPIRED', '/quote_id');

    // Invalid addresses: a wrong EIP-55 checksum, an EVM address for solana.
    const q1 = await newQuote();
    await refused(body(q1, { sender_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }), 'INVALID_ADDRESS', '/sender_address');
    await refused(body(q1, { recipient_address: 'not-an-address' }), 'INVALID_ADDRESS', '/recipient_address');
    const qs = await newQuote({ destination_chain: 'solana' });
    await refused(body(qs, { recipient_address: EVM_B }), 'INVALID_ADDRESS', '/recipient_address');
    await refused(body(qs, { recipient_address: SOL.slice(0, -1) + '0' }), 'INVALID_ADDRESS', '/recipient_address');
    // Deadline shorter than the route takes (wormhole ethereum -> arbitrum: about 14 minutes).
    await refused(body(q1, { deadline_minutes: 5 }), 'DEADLINE_TOO_SHORT', '/deadline_minutes');
    await refused(body(q1, { slippage_tolerance: 0.9 }), 'VALIDATION_ERROR', '/slippage_tolerance');

    // Used: the first initiate spends it, the second is refused.
    const ok = await call('POST', '/api/v1/crosschain/bridge/initiate', body(q1, { deadline_minutes: 60 }), me.headers);
    expect(ok.statusCode).toBe(201);
    await refused(body(q1), 'QUOTE_ALREADY_USED', '/quote_id');

    // Another user's quote does not exist for the caller, nor does their transfer.
    const other: TestUser = await createTestUser();
    await fundedAccount('100.00', 'USDC', other.headers);
    const theirs = await newQuote({}, other.headers);
    await refused(body(theirs), 'QUOTE_NOT_FOUND', '/quote_id');
    expect((await call('GET', `/api/v1/crosschain/bridge/${ok.json().data.bridge_tx_id}`, undefined, other.headers)).statusCode).toBe(404);
    await refused(body('bq_missing'), 'QUOTE_NOT_FOUND', '/quote_id');

    // Funds: the account holds 80 USDC on ethereum now (20 reserved or moved), none on polygon.
    const big = await newQuote({ amount: '95' });
    await refused(body(big), 'INSUFFICIENT_FUNDS', '/amount');
    const poly = await newQuote({ source_chain: 'polygon', amount: '10' });
    await refused(body(poly), 'INSUFFICIENT_FUNDS', '/amount');
    // account_id of another user is 404.
    const q2 = await newQuote();
    const foreign = (await call('POST', '/api/v2/accounts', { name: 'x' }, other.headers)).json().data.uuid;
    const r404 = await call('POST', '/api/v1/crosschain/bridge/initiate', body(q2, { account_id: foreign }), me.headers);
    expect(r404.statusCode).toBe(404);
    await env.client.workflow.getHandle(ok.json().data.workflow_id).result();
    // EVM_B is outside the platform: 20 USDC left the account's books (19.5 delivered, 0.5 fee).
    expect(await books(acct, 'USDC')).toEqual({ home: { total: '80.000000', available: '80.000000', reserved: '0.000000' } });
  });

  it('the portfolio shows holdings per chain from the ledger, with USD values', async () => {
    const user = await createTestUser();
    const acct = await fundedAccount('1000.00', 'USDC', user.headers);
    await fundedAccount('1', 'ETH', user.headers);
    const b = (await call('POST', '/api/v2/crosschain/bridge', { source_chain: 'ethereum', destination_chain: 'polygon', token: 'USDC', amount: '400', protocol: 'wormhole' }, user.headers)).json().data;
    await env.client.workflow.getHandle(b.workflow_id).result();
    const r = await call('GET', '/api/v2/crosschain/portfolio', undefined, user.headers);
    expect(r.statusCode).toBe(200);
    const p = r.json().data;
    const chains = Object.fromEntries(p.chains.map((c: any) => [c.chain, c]));
    expect(Object.keys(chains).sort()).toEqual(['ethereum', 'polygon']);
    expect(chains.polygon).toMatchObject({ caip2: 'eip155:137', total_usd: '399.50' });
    expect(chains.polygon.holdings[0]).toMatchObject({ account_id: acct, asset_code: 'USDC', token: 'USDC', token_address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', total_balance: '399.500000' });
    expect(chains.ethereum.total_usd).toBe('4000.00');
    expect(p.total_usd).toBe('4399.50');
    expect(p.assets.find((a: any) => a.asset_code === 'USDC')).toMatchObject({ total_balance: '999.500000', chains: ['ethereum', 'polygon'] });
    expect(p.in_flight).toEqual([]);
    expect((await call('GET', `/api/v2/crosschain/portfolio?account_id=${acct}`, undefined, t.headers)).statusCode).toBe(404);
  });
});

describe('tenant isolation (issue 41)', () => {
  it("another customer of the tenant and a customer of another tenant get 404 on A's bridges, quotes, swaps and accounts; nothing changes", async () => {
    const { a, b, c } = await tenantCustomers(t.user.userId);
    const acct = await fundedAccount('100.00', 'USDC', a.headers);
    const newQuote = async (headers: Record<string, string>) =>
      (await quote({ source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount: '20', preferred_bridge: 'wormhole' }, headers)).json().data.quote_id as string;
    const created = (await call('POST', '/api/v1/crosschain/bridge/initiate', { quote_id: await newQuote(a.headers), sender_address: EVM_A, recipient_address: EVM_B }, a.headers)).json().data;
    await env.client.workflow.getHandle(created.workflow_id).result();
    const spare = await newQuote(a.headers);
    // A cross-chain swap of A's (a stored row: its workflow needs a funded market).
    const swap = newId('ccswap');
    await getPool().query(
      `INSERT INTO defi_crosschain_swaps (id, environment, user_id, account_id, source_chain, destination_chain, from_token, to_token, amount, slippage_bps, status, workflow_id)
       VALUES ($1, 'sandbox', $2, $3, 'ethereum', 'arbitrum', 'USDC', 'WETH', 1, 100, 'pending', $1)`,
      [swap, a.userId, acct],
    );
    const snapshot = async () => ({
      books: await books(acct, 'USDC'),
      bridges: (await getPool().query('SELECT id, status, updated_at FROM bridge_transfers WHERE account_id = $1 ORDER BY id', [acct])).rows,
      quote: (await getPool().query('SELECT used_at FROM bridge_quotes WHERE id = $1', [spare])).rows,
      swaps: (await getPool().query('SELECT id, status FROM defi_crosschain_swaps WHERE account_id = $1', [acct])).rows,
    });
    const before = await snapshot();
    const notFound = { status: 404, code: 'NOT_FOUND' };
    const accountNotFound = { status: 404, code: 'ACCOUNT_NOT_FOUND' };
    const wrong: string[] = [];
    for (const [who, headers] of [['B (same tenant)', b.headers], ['C (other tenant)', c.headers]] as const) {
      // Funded, with a quote of their own: a refusal is about A's resource, not their own means.
      await fundedAccount('100.00', 'USDC', headers);
      const own = await newQuote(headers);
      const probes: Probe[] = [
        { method: 'GET', url: `/api/v1/crosschain/bridge/${created.bridge_tx_id}` },
        { method: 'GET', url: `/api/v2/crosschain/bridge/${created.bridge_tx_id}` },
        { method: 'POST', url: '/api/v1/crosschain/bridge/initiate', payload: { quote_id: spare, sender_address: EVM_A, recipient_address: EVM_B }, expect: { status: 422, code: 'QUOTE_NOT_FOUND' } },
        { method: 'POST', url: '/api/v1/crosschain/bridge/initiate', payload: { quote_id: own, account_id: acct, sender_address: EVM_A, recipient_address: EVM_B }, expect: accountNotFound },
        { method: 'POST', url: '/api/v2/crosschain/bridge', payload: { source_chain: 'ethereum', destination_chain: 'base', token: 'USDC', amount: '10', protocol: 'wormhole', account_id: acct }, expect: accountNotFound },
        { method: 'GET', url: `/api/v2/crosschain/portfolio?account_id=${acct}` },
        { method: 'GET', url: `/api/v2/crosschain/swap/${swap}` },
        { method: 'POST', url: '/api/v2/crosschain/swap', payload: { source_chain: 'ethereum', destination_chain: 'arbitrum', from_token: 'USDC', to_token: 'WETH', amount: '10', account_id: acct }, expect: accountNotFound },
      ];
      wrong.push(...(await refusalsOf(t.app, probes, [[who, headers]], notFound, [acct, created.bridge_tx_id, spare, swap])));
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});

describe('twenty at once (issue 41)', () => {
  it('twenty concurrent bridge initiations with one Idempotency-Key create one bridge and reserve once', async () => {
    const me = await createTestUser();
    const acct = await fundedAccount('100.00', 'USDC', me.headers);
    const body = { source_chain: 'ethereum', destination_chain: 'base', token: 'USDC', amount: '30', protocol: 'wormhole', recipient_address: EVM_B };
    const headers = { ...me.headers, 'idempotency-key': `bridge-${newId('k')}` };
    const rs = await Promise.all(Array.from({ length: 20 }, () => call('POST', '/api/v2/crosschain/bridge', body, headers)));
    // The first runs; the others are answered with it, or told it is still running.
    for (const r of rs) expect([201, 409], r.body).toContain(r.statusCode);
    for (const r of rs.filter((x) => x.statusCode === 409)) expect(r.json().errors[0].code).toBe('IDEMPOTENCY_REQUEST_IN_PROGRESS');
    const ids = new Set(rs.filter((r) => r.statusCode === 201).map((r) => r.json().data.bridge_tx_id));
    expect(ids.size).toBe(1);
    const { rows } = await getPool().query<{ id: string; workflow_id: string }>('SELECT id, workflow_id FROM bridge_transfers WHERE account_id = $1', [acct]);
    expect(rows.map((r) => r.id)).toEqual([...ids]);
    await env.client.workflow.getHandle(rows[0].workflow_id).result();
    const entries = await getPool().query(`SELECT DISTINCT e.id FROM journal_entries e JOIN ledger_lines l ON l.entry_id = e.id WHERE l.account_id = $1 AND e.type = 'bridge'`, [acct]);
    expect(entries.rowCount).toBe(1);
    // 30 left the customer's books once (EVM_B is outside the platform).
    expect(await books(acct, 'USDC')).toEqual({ home: { total: '70.000000', available: '70.000000', reserved: '0.000000' } });
    await expectBalancedLedger();
  });

  it('twenty concurrent initiations with different keys never overspend: what the balance covers is accepted and completes, the rest is refused at once', async () => {
    const me = await createTestUser();
    const acct = await fundedAccount('100.00', 'USDC', me.headers);
    const body = { source_chain: 'ethereum', destination_chain: 'base', token: 'USDC', amount: '30', protocol: 'wormhole', recipient_address: EVM_B };
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', '/api/v2/crosschain/bridge', body, { ...me.headers, 'idempotency-key': `spend-${i}-${newId('k')}` })));
    const accepted = rs.filter((r) => r.statusCode === 201).map((r) => r.json().data);
    const refused = rs.filter((r) => r.statusCode !== 201);
    // 100 covers three bridges of 30.
    expect(accepted).toHaveLength(3);
    expect(refused.map((r) => [r.statusCode, r.json().errors[0].code])).toEqual(Array.from({ length: 17 }, () => [422, 'INSUFFICIENT_FUNDS']));
    const done: string[] = [];
    for (const x of accepted) done.push((await finish(x.bridge_tx_id, x.workflow_id, me.headers)).status);
    expect(done).toEqual(['completed', 'completed', 'completed']);
    expect(await books(acct, 'USDC')).toEqual({ home: { total: '10.000000', available: '10.000000', reserved: '0.000000' } });
    await expectBalancedLedger();
  });
});
