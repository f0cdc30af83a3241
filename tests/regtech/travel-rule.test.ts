import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { ensureSanctionsList } from '../../domain/regtech/sanctions';
import { latestPassingCheck } from '../../domain/regtech/travel-rule';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';

let t: TestApp;
let transferId: string;
beforeAll(async () => {
  t = await createTestApp();
  await ensureSanctionsList();
  transferId = await transferOf('100.00', 'USD');
}, 120_000);

/** A completed transfer of the caller's moving exactly this amount (a check must state its transfer's own amount). */
const accounts = new Map<string, [string, string]>();
async function transferOf(amount: string, asset: string): Promise<string> {
  if (!accounts.has(asset)) {
    accounts.set(asset, [await openFundedAccount(t, t.headers, '100000', asset), await openFundedAccount(t, t.headers, '0', asset)]);
  }
  const [a, b] = accounts.get(asset)!;
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: a, to_account: b, amount, asset_code: asset, workflow_enabled: false } });
  expect(r.statusCode, r.body).toBe(201);
  return r.json().data.uuid;
}
afterAll(async () => t.close());

const alice = { name: 'Alice Example', account_number: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' };
const bob = { name: 'Bob Receiver', account_number: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', institution_name: 'Example VASP AG', institution_country: 'DE' };
const selfHostedBob = { name: 'Bob Receiver', account_number: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' };

function check(over: Record<string, unknown> = {}, headers = t.headers) {
  const body = { transfer_id: transferId, originator: alice, beneficiary: bob, transfer_details: { amount: '100.00', currency: 'USD', asset_type: 'crypto', purpose: 'payment' }, jurisdiction: 'US', ...over };
  return t.app.inject({ method: 'POST', url: '/api/v1/regtech/travel-rule/check', headers, payload: body });
}
/** Details of a new transfer of this amount, and that transfer's id. */
const details = async (amount: string, currency = 'USD') => ({ transfer_id: await transferOf(amount, currency), transfer_details: { amount, currency } });
const codes = (r: { json(): any }) => r.json().data.compliance_issues.map((i: { code: string }) => i.code);

describe('thresholds by jurisdiction, at the boundary', () => {
  it('US: 2,999.99 USD needs no full identification; 3,000.00 does, and then the beneficiary VASP must be known', async () => {
    const below = await check({ ...await details('2999.99'), beneficiary: selfHostedBob });
    expect(below.statusCode, below.body).toBe(201);
    expect(below.json().data).toMatchObject({
      is_compliant: true,
      risk_level: 'low',
      applicable_jurisdiction: 'US',
      threshold_analysis: { amount_usd: '2999.99', exceeds_threshold: false, threshold_amount: '3000.00', full_identification_required: false },
      sanctions_screening: { originator_cleared: true, beneficiary_cleared: true },
    });
    expect(below.json().data.applicable_regulations[0]).toMatch(/1010\.410/);
    const at = await check({ ...await details('3000.00'), beneficiary: selfHostedBob });
    expect(at.json().data).toMatchObject({ is_compliant: false, threshold_analysis: { exceeds_threshold: true, full_identification_required: true } });
    expect(codes(at)).toEqual(['BENEFICIARY_VASP_MISSING']);
    const full = await check(await details('3000.00'));
    expect(full.json().data).toMatchObject({ is_compliant: true, risk_level: 'medium', beneficiary_verified: true, compliance_issues: [] });
  });

  it('EU: every transfer between providers; a self-hosted address needs ownership proof above EUR 1,000', async () => {
    const small = await check({ ...await details('10.00', 'EUR'), jurisdiction: 'EU', beneficiary: selfHostedBob });
    expect(small.json().data).toMatchObject({ is_compliant: true, threshold_analysis: { exceeds_threshold: true, threshold_amount: '0.00', amount_usd: '10.80' } });
    const large = await check({ ...await details('1000.01', 'EUR'), jurisdiction: 'EU', beneficiary: selfHostedBob });
    expect(codes(large)).toEqual(['SELF_HOSTED_WALLET_OWNERSHIP_UNVERIFIED']);
    const atLimit = await check({ ...await details('1000.00', 'EUR'), jurisdiction: 'eu', beneficiary: selfHostedBob });
    expect(atLimit.json().data.is_compliant).toBe(true);
  });

  it('Canada and Singapore thresholds convert with their dated reference rates; FATF is the default', async () => {
    // CAD 1,000 at 0.72 USD = 720.00 USD.
    expect((await check({ ...await details('719.99'), jurisdiction: 'CA', beneficiary: selfHostedBob })).json().data.threshold_analysis).toMatchObject({ threshold_amount: '720.00', exceeds_threshold: false });
    expect((await check({ ...await details('720.00'), jurisdiction: 'CA', beneficiary: selfHostedBob })).json().data.threshold_analysis.exceeds_threshold).toBe(true);
    // SGD 1,500 at 0.75 = 1,125.00 USD.
    expect((await check({ ...await details('1124.99'), jurisdiction: 'SG' })).json().data.threshold_analysis).toMatchObject({ threshold_amount: '1125.00', exceeds_threshold: false });
    expect((await check({ ...await details('999.99'), jurisdiction: 'FATF' })).json().data.threshold_analysis).toMatchObject({ threshold_amount: '1000.00', exceeds_threshold: false });
    // A crypto amount converts at the platform's rate (ETH 3,400).
    expect((await check({ ...await details('1', 'ETH'), jurisdiction: 'US' })).json().data.threshold_analysis).toMatchObject({ amount_usd: '3400.00', exceeds_threshold: true, usd_rate: '3400' });
  });
});

describe('sanctions screening inside the check', () => {
  it('a listed beneficiary fails the check, is high risk and emits compliance.violation.detected', async () => {
    const passing = (await check()).json().data.check_id;
    const r = await check({ beneficiary: { ...bob, name: 'Manuel Antonio Noriega' } });
    expect(r.json().data).toMatchObject({ is_compliant: false, risk_level: 'high', sanctions_screening: { originator_cleared: true, beneficiary_cleared: false } });
    expect(codes(r)).toContain('SANCTIONS_HIT');
    expect(r.json().data.recommendations.join(' ')).toMatch(/hold the transfer/);
    const { rows } = await getPool().query<{ data: any }>(`SELECT data FROM platform_events WHERE type = 'compliance.violation.detected'`);
    expect(rows.at(-1)!.data).toMatchObject({ framework: 'travel_rule', check_id: r.json().data.check_id, party: 'beneficiary', code: 'SANCTIONS_HIT' });
    expect(rows.at(-1)!.data.matches[0]).toMatchObject({ entry_id: 1572 });
    // The failing check does not hide the earlier passing one; the newest passing check is what a workflow reads.
    expect((await latestPassingCheck(transferId, 'sandbox'))?.id).toBe(passing);
  });

  it('events match the catalog', async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    for (const type of ['travel_rule.check.completed', 'compliance.violation.detected']) {
      const info = EVENT_CATALOG.find((e) => e.type === type)!;
      expect(info.produced).toBe(true);
      const validate = ajv.compile(info.data_schema);
      const { rows } = await getPool().query<{ data: unknown }>('SELECT data FROM platform_events WHERE type = $1', [type]);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(validate(row.data), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});

describe('records and refusals', () => {
  it('keeps the parties as IVMS101 and returns the stored check by id to its owner only', async () => {
    const r = await check();
    const id = r.json().data.check_id;
    const got = await t.app.inject({ method: 'GET', url: `/api/v2/regtech/travel-rule/checks/${id}`, headers: t.headers });
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toMatchObject({ check_id: id, transfer_id: transferId });
    expect(got.json().data.ivms101).toMatchObject({
      originator: { originatorPerson: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: 'Example', secondaryIdentifier: 'Alice', naturalPersonNameIdentifierType: 'LEGL' }] } } }] },
      beneficiaryVASP: { legalPerson: { countryOfRegistration: 'DE' } },
      beneficiary: { accountNumber: [bob.account_number] },
      payloadMetadata: { payloadVersion: '101.2023' },
    });
    const other = await createTestUser();
    expect((await t.app.inject({ method: 'GET', url: `/api/v2/regtech/travel-rule/checks/${id}`, headers: other.headers })).statusCode).toBe(404);
    const v = new Date(got.json().data.valid_until).getTime() - new Date(got.json().data.checked_at).getTime();
    expect(v).toBe(24 * 3_600_000);
  });

  it('the transfers form records the parties and runs the same check', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/regtech/travel-rule/transfers',
      headers: t.headers,
      payload: { transfer_id: transferId, originator: { name: 'Alice Example', account: 'acct-1' }, beneficiary: { name: 'Bob Receiver', vasp_id: 'Example VASP AG', account: 'acct-2' }, amount: '100.00', currency: 'USD' },
    });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data).toMatchObject({ applicable_jurisdiction: 'FATF', is_compliant: true, threshold_analysis: { exceeds_threshold: false } });
  });

  it("a check that states another amount or currency than its transfer's fails with TRANSFER_DETAILS_MISMATCH", async () => {
    for (const transfer_details of [{ amount: '99.99', currency: 'USD' }, { amount: '100.00', currency: 'EUR' }]) {
      const r = await check({ transfer_details });
      expect(r.statusCode).toBe(201);
      expect(r.json().data.is_compliant).toBe(false);
      expect(codes(r)).toEqual(['TRANSFER_DETAILS_MISMATCH']);
    }
    // The same amount in another spelling is the transfer's own.
    expect((await check({ transfer_details: { amount: '100', currency: 'usd' } })).json().data.is_compliant).toBe(true);
  });

  it('bad input is a 4xx with a pointer and stores nothing', async () => {
    const before = (await getPool().query('SELECT count(*)::int AS n FROM travel_rule_checks')).rows[0].n;
    const cases: Array<[Record<string, unknown>, number, string, string?]> = [
      [{ jurisdiction: 'ZZ' }, 422, 'UNSUPPORTED_JURISDICTION', '/jurisdiction'],
      [{ transfer_id: 'txfr_nope' }, 404, 'TRANSFER_NOT_FOUND'],
      [{ transfer_details: { amount: '0', currency: 'USD' } }, 422, 'AMOUNT_NOT_POSITIVE', '/transfer_details/amount'],
      [{ transfer_details: { amount: '-5', currency: 'USD' } }, 422, 'VALIDATION_ERROR'],
      [{ transfer_details: { amount: '10', currency: 'NOPE' } }, 422, 'RATE_UNAVAILABLE', '/transfer_details/currency'],
      [{ beneficiary: { ...bob, institution_country: 'QZ' } }, 422, 'INVALID_IVMS101', '/beneficiary/institution_country'],
      [{ originator: { account_number: '1' } }, 422, 'VALIDATION_ERROR'],
      [{ beneficiary: { name: 'Bob Receiver' } }, 422, 'INVALID_IVMS101', '/beneficiary/account_number'],
    ];
    for (const [over, status, code, pointer] of cases) {
      const r = await check(over);
      expect(r.statusCode, JSON.stringify(over) + r.body).toBe(status);
      expect(r.json().errors[0].code).toBe(code);
      if (pointer) expect(r.json().errors[0].source?.pointer).toBe(pointer);
    }
    const other = await createTestUser();
    expect((await check({}, other.headers)).statusCode).toBe(404);
    expect((await getPool().query('SELECT count(*)::int AS n FROM travel_rule_checks')).rows[0].n).toBe(before);
  });

  it('GET /regtech/status counts this caller\'s checks and describes the loaded list; unbuilt frameworks say so', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v2/regtech/status', headers: t.headers });
    expect(r.statusCode, r.body).toBe(200);
    const f = r.json().data.frameworks;
    const { rows } = await getPool().query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE is_compliant)::int AS ok FROM travel_rule_checks WHERE user_id = $1`, [t.user.userId]);
    expect(f.travel_rule).toMatchObject({ active: true, checks: rows[0].n, compliant: rows[0].ok, non_compliant: rows[0].n - rows[0].ok });
    expect(f.sanctions).toMatchObject({ active: true, entries: expect.any(Number) });
    expect(f.sanctions.version).toMatch(/^[0-9a-f]{64}$/);
    expect(f.sanctions.hits_last_30_days).toBeGreaterThan(0);
    expect(f.mifid_ii).toMatchObject({ active: true, reports: 0, overdue: 0 });
    expect(f.mica).toMatchObject({ active: true, register_issuers: 4 });
    const other = await createTestUser();
    const theirs = (await t.app.inject({ method: 'GET', url: '/api/v2/regtech/status', headers: other.headers })).json().data.frameworks;
    expect(theirs.travel_rule.checks).toBe(0);
  });
});
