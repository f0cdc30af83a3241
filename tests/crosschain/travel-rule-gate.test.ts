import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import { createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { checkOutboxAgainstCatalog } from '../rails/events';
import { startRailsHarness, waitForWorkflowStep, type RailsHarness } from '../rails/harness';

// The time-skipping server with the API and a worker (the rails' harness is not rail-specific).
let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;
let operator: TestUser;

beforeAll(async () => {
  h = await startRailsHarness('travel-rule-gate');
  ({ env, t } = h);
  operator = await createTestUser({ admin: true });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

// A customer's own wallet elsewhere (EIP-55 test vector): crypto sent there leaves the platform.
const EXTERNAL = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const call = (method: 'GET' | 'POST', url: string, payload?: unknown, headers = t.headers) => t.app.inject({ method, url, headers, ...(payload ? { payload: payload as object } : {}) });

async function funded(amount: string, asset: string): Promise<string> {
  const id = (await call('POST', '/api/v2/accounts', { name: 'crypto' })).json().data.uuid;
  expect((await call('POST', `/api/v2/accounts/${id}/deposit`, { amount, asset_code: asset })).statusCode).toBe(201);
  return id;
}

/** A wormhole bridge of `amount` USDC from ethereum to arbitrum, to `recipient` (default: the account's own custody address). */
async function bridge(account: string, amount: string, recipient?: string) {
  const r = await call('POST', '/api/v2/crosschain/bridge', {
    source_chain: 'ethereum', destination_chain: 'arbitrum', token: 'USDC', amount, protocol: 'wormhole', account_id: account, deadline_minutes: 120,
    ...(recipient ? { recipient_address: recipient } : {}),
  });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data as { bridge_tx_id: string; workflow_id: string };
}

const waitForStep = (workflowId: string, step: string) => waitForWorkflowStep(env, workflowId, step);

async function finish(b: { bridge_tx_id: string; workflow_id: string }) {
  await env.client.workflow.getHandle(b.workflow_id).result();
  return (await call('GET', `/api/v1/crosschain/bridge/${b.bridge_tx_id}`)).json().data;
}

const travelRuleCheck = (transferId: string, amount: string, beneficiaryName = 'Bob Receiver') =>
  call('POST', '/api/v1/regtech/travel-rule/check', {
    transfer_id: transferId,
    originator: { name: 'Alice Example', account_number: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
    beneficiary: { name: beneficiaryName, account_number: EXTERNAL, institution_name: 'Example VASP AG', institution_country: 'DE' },
    transfer_details: { amount, currency: 'USDC', asset_type: 'crypto' },
    jurisdiction: 'FATF',
  });

const statuses = (done: any) => done.history.map((x: any) => x.status);

describe('the Travel Rule gate on crypto leaving the platform (FATF, USD 1,000)', () => {
  it('1,000 USDC to an outside address waits, reserved, for a check; the check wakes it and it is sent', async () => {
    const acct = await funded('2000', 'USDC');
    const b = await bridge(acct, '1000', EXTERNAL);
    await waitForStep(b.workflow_id, 'travel_rule');
    // The step is set before its activity records the requirement: wait for the record.
    let waiting: any;
    for (let i = 0; i < 300; i++) {
      waiting = (await call('GET', `/api/v1/crosschain/bridge/${b.bridge_tx_id}`)).json().data;
      if (statuses(waiting).includes('travel_rule_required')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(waiting).toMatchObject({ status: 'reserved', source_tx_hash: null });
    expect(statuses(waiting)).toContain('travel_rule_required');
    expect(waiting.history.find((x: any) => x.status === 'travel_rule_required').detail).toMatchObject({ jurisdiction: 'FATF', amount_usd: '1000.00', threshold_usd: '1000.00' });

    const c = await travelRuleCheck(b.bridge_tx_id, '1000.000000');
    expect(c.json().data.is_compliant, c.body).toBe(true);
    const done = await finish(b);
    expect(done.status).toBe('completed');
    expect(statuses(done)).toEqual(['pending', 'validated', 'reserved', 'screened', 'travel_rule_required', 'travel_rule_passed', 'source_submitted', 'source_finalized', 'attested', 'destination_submitted', 'completed']);
    expect(done.history.find((x: any) => x.status === 'travel_rule_passed').detail.check_id).toBe(c.json().data.check_id);
  });

  it('no check before the wait ends: nothing is sent, the reservation is voided, TRAVEL_RULE_CHECK_MISSING', async () => {
    const acct = await funded('2000', 'USDC');
    const b = await bridge(acct, '1500', EXTERNAL);
    const done = await finish(b);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'TRAVEL_RULE_CHECK_MISSING' }, compensation: 'voided', source_tx_hash: null });
    expect(done.failure.reason).toMatch(/no Travel Rule check/);
    const { rows } = await getPool().query(`SELECT reservation_entry_id FROM bridge_transfers WHERE id = $1`, [b.bridge_tx_id]);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('voided');
    const bal = (await call('GET', `/api/v2/accounts/${acct}/balances`)).json().data.balances[0];
    expect(bal).toMatchObject({ total_balance: '2000.000000', reserved_balance: '0.000000' });
  });

  it('a failing check (listed beneficiary, or another amount) does not release it: TRAVEL_RULE_CHECK_FAILED with the issues', async () => {
    const acct = await funded('5000', 'USDC');
    const listed = await bridge(acct, '1200', EXTERNAL);
    expect((await travelRuleCheck(listed.bridge_tx_id, '1200', 'Manuel Antonio Noriega')).json().data.is_compliant).toBe(false);
    const done = await finish(listed);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'TRAVEL_RULE_CHECK_FAILED' }, source_tx_hash: null });
    expect(done.failure.reason).toMatch(/SANCTIONS_HIT/);

    const understated = await bridge(acct, '1300', EXTERNAL);
    expect((await travelRuleCheck(understated.bridge_tx_id, '999')).json().data.compliance_issues.map((i: any) => i.code)).toEqual(['TRANSFER_DETAILS_MISMATCH']);
    expect((await finish(understated)).failure).toMatchObject({ code: 'TRAVEL_RULE_CHECK_FAILED' });
  });

  it('below the threshold, or to the account\'s own custody address, no check is needed; an unlisted outside recipient is screened, not held', async () => {
    const acct = await funded('5000', 'USDC');
    const small = await finish(await bridge(acct, '999.99', EXTERNAL));
    expect(small.status).toBe('completed');
    expect(statuses(small)).not.toContain('travel_rule_required');
    expect(statuses(small)).not.toContain('held');
    const screened = small.history.find((x: any) => x.status === 'screened');
    expect(screened?.detail).toMatchObject({ recipient_address: EXTERNAL, sanctions_hit: false });
    expect(screened.detail.list_version).toMatch(/^[0-9a-f]{64}$/);
    // Nothing leaves the platform: there is no one outside to screen.
    const own = await finish(await bridge(acct, '3000'));
    expect(own.status).toBe('completed');
    expect(statuses(own)).not.toContain('travel_rule_required');
    expect(statuses(own)).not.toContain('screened');
  });
});

// An ETH address of SDN entry 39796 on the OFAC list every test database loads (sdn_comments.csv writes
// it 0x8589427373D6D84E98730D7795D8f6f8731FDA16), given in lower case as a customer might.
const LISTED = '0x8589427373d6d84e98730d7795d8f6f8731fda16';
const LISTED_CHECKSUMMED = '0x8589427373D6D84E98730D7795D8f6f8731FDA16';

async function openHoldOf(transferId: string) {
  const r = await call('GET', '/api/v2/regtech/holds?status=open&per_page=100', undefined, operator.headers);
  expect(r.statusCode).toBe(200);
  return r.json().data.find((x: any) => x.subject_id === transferId);
}

/** Transactions the sandbox chain holds for the bridge (source or destination leg). */
async function chainLegs(transferId: string): Promise<number> {
  const { rows } = await getPool().query(`SELECT count(*)::int AS n FROM chain_transactions WHERE data->>'bridge_tx_id' = $1`, [transferId]);
  return rows[0].n;
}

const balanceOf = async (acct: string) => (await call('GET', `/api/v2/accounts/${acct}/balances`)).json().data.balances[0];

/** A 100 USDC bridge (below the Travel Rule threshold) to the listed address, waiting for the operator. */
async function heldBridge() {
  const acct = await funded('500', 'USDC');
  const b = await bridge(acct, '100', LISTED);
  await waitForStep(b.workflow_id, 'compliance_review');
  return { acct, b, hold: await openHoldOf(b.bridge_tx_id) };
}

describe('sanctions screening of the recipient of crypto leaving the platform (OFAC digital-currency addresses)', () => {
  it('a bridge to a listed address is held before anything reaches the chain, its amount reserved; an operator releases it and it completes', async () => {
    const { acct, b, hold } = await heldBridge();
    const held = (await call('GET', `/api/v1/crosschain/bridge/${b.bridge_tx_id}`)).json().data;
    expect(held).toMatchObject({ status: 'reserved', source_tx_hash: null, destination_tx_hash: null });
    expect(statuses(held)).toEqual(['pending', 'validated', 'reserved', 'screened', 'held']);
    expect(await chainLegs(b.bridge_tx_id)).toBe(0);
    expect(await balanceOf(acct)).toMatchObject({ total_balance: '500.000000', reserved_balance: '100.000000' });
    expect(hold).toMatchObject({ subject_kind: 'bridge', reason_code: 'SANCTIONS_HIT', party: 'recipient', screened_name: LISTED_CHECKSUMMED, status: 'open' });
    expect(hold.matches[0]).toMatchObject({ entry_id: 39796, matched_name: `ETH ${LISTED_CHECKSUMMED}`, score: 1 });

    // The customer cannot release its own bridge.
    expect((await call('POST', `/api/v2/regtech/holds/${hold.id}/release`, {}, t.headers)).statusCode).toBe(403);
    expect((await call('POST', `/api/v2/regtech/holds/${hold.id}/release`, { note: 'reviewed' }, operator.headers)).statusCode).toBe(200);
    const done = await finish(b);
    expect(done).toMatchObject({ status: 'completed', recipient_address: LISTED_CHECKSUMMED });
    expect(statuses(done)).toEqual(expect.arrayContaining(['screened', 'held', 'released', 'source_submitted', 'completed']));
    expect(done.history.find((x: any) => x.status === 'released').detail).toMatchObject({ hold_id: hold.id, decided_by: operator.userId });
    // Delivered outside: the amount left the customer's books.
    expect(await balanceOf(acct)).toMatchObject({ total_balance: '400.000000', reserved_balance: '0.000000' });
    const ev = await getPool().query(`SELECT data FROM platform_events WHERE type = 'compliance.violation.detected' AND aggregate_id = $1`, [hold.id]);
    expect(ev.rows[0].data).toMatchObject({ framework: 'sanctions', code: 'SANCTIONS_HIT', subject_kind: 'bridge', subject_id: b.bridge_tx_id, party: 'recipient', address: LISTED_CHECKSUMMED });
    expect((await checkOutboxAgainstCatalog(['compliance', 'bridge'])).problems).toEqual([]);
  });

  it('an operator rejects it: nothing was sent, the reservation is voided and the balances are as before (SANCTIONS_REJECTED)', async () => {
    const { acct, b, hold } = await heldBridge();
    expect((await call('POST', `/api/v2/regtech/holds/${hold.id}/reject`, { note: 'confirmed' }, operator.headers)).statusCode).toBe(200);
    const done = await finish(b);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'SANCTIONS_REJECTED' }, compensation: 'voided', source_tx_hash: null });
    expect(await chainLegs(b.bridge_tx_id)).toBe(0);
    const { rows } = await getPool().query(`SELECT reservation_entry_id, recovery_required FROM bridge_transfers WHERE id = $1`, [b.bridge_tx_id]);
    expect(rows[0].recovery_required).toBe(false);
    expect((await getEntry(rows[0].reservation_entry_id))!.status).toBe('voided');
    expect(await balanceOf(acct)).toMatchObject({ total_balance: '500.000000', reserved_balance: '0.000000' });
  });

  it('no decision before the review window (capped at the bridge\'s deadline) ends: the hold expires and the bridge is compensated', async () => {
    const acct = await funded('500', 'USDC');
    const b = await bridge(acct, '100', LISTED);
    const done = await finish(b);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'SANCTIONS_REVIEW_TIMEOUT' }, compensation: 'voided', source_tx_hash: null });
    expect((await getPool().query(`SELECT status FROM compliance_holds WHERE subject_kind = 'bridge' AND subject_id = $1`, [b.bridge_tx_id])).rows[0].status).toBe('expired');
    expect(await balanceOf(acct)).toMatchObject({ total_balance: '500.000000', reserved_balance: '0.000000' });
  });
});
