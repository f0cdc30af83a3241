import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getPool } from '../../domain/db/pool';
import { getEntry } from '../../domain/ledger';
import type { TestApp } from '../helpers/app';
import { startRailsHarness, waitForWorkflowStep, type RailsHarness } from '../rails/harness';

// The time-skipping server with the API and a worker (the rails' harness is not rail-specific).
let h: RailsHarness;
let env: TestWorkflowEnvironment;
let t: TestApp;

beforeAll(async () => {
  h = await startRailsHarness('travel-rule-gate');
  ({ env, t } = h);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

// A customer's own wallet elsewhere (EIP-55 test vector): crypto sent there leaves the platform.
const EXTERNAL = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const call = (method: 'GET' | 'POST', url: string, payload?: unknown) => t.app.inject({ method, url, headers: t.headers, ...(payload ? { payload: payload as object } : {}) });

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
    expect(statuses(done)).toEqual(['pending', 'validated', 'reserved', 'travel_rule_required', 'travel_rule_passed', 'source_submitted', 'source_finalized', 'attested', 'destination_submitted', 'completed']);
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

  it('below the threshold, or to the account\'s own custody address, no check is needed', async () => {
    const acct = await funded('5000', 'USDC');
    const small = await finish(await bridge(acct, '999.99', EXTERNAL));
    expect(small.status).toBe('completed');
    expect(statuses(small)).not.toContain('travel_rule_required');
    const own = await finish(await bridge(acct, '3000'));
    expect(own.status).toBe('completed');
    expect(statuses(own)).not.toContain('travel_rule_required');
  });
});
