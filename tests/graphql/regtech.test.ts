import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSanctionsList } from '../../domain/regtech/sanctions';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { openFundedAccount } from '../transfers/helpers';
import { gql, gqlOk, gqlRefused } from './helpers';

let t: TestApp;
let w: TestWorker;
let other: TestUser;
let admin: TestUser;
let readOnly: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  await ensureSanctionsList();
  other = await createTestUser();
  admin = await createTestUser({ admin: true });
  readOnly = await createTestUser({ permissions: ['read'] });
}, 120_000);
afterAll(async () => {
  await w?.stop();
  await t?.close();
});

type Headers = Record<string, string>;
const get = async (url: string, headers: Headers = t.headers) => t.app.inject({ method: 'GET', url, headers });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const USDC_PAPER = sha('USDC e-money token white paper, Circle Internet Financial Europe SAS, version 1');

const MICA = /* GraphQL */ `
  mutation ($input: MicaCheckInput!) {
    runMicaCheck(input: $input) { id assetType isCompliant classification classificationBasis issuer { id name authorisation homeMemberState }
      whitepaper { id assetCode version status publishedAt } complianceIssues { code description } recommendations checkedAt }
  }
`;

describe('MiCA checks over GraphQL', () => {
  it('a check run over GraphQL is stored through the domain and reads the same as REST', async () => {
    const data = await gqlOk(t, MICA, { input: { assetType: 'USDC', issuerId: 'iss_circle_eu', whitepaperHash: USDC_PAPER } });
    const c = data.runMicaCheck;
    expect(c).toMatchObject({ isCompliant: true, classification: 'e_money_token', whitepaper: { id: 'wp_usdc_1', status: 'registered' }, complianceIssues: [] });
    const rest = await get(`/api/v2/regtech/mica/checks/${c.id}`);
    expect(rest.statusCode, rest.body).toBe(200);
    const r = rest.json().data;
    const q = (await gqlOk(t, `{ micaCheck(id: "${c.id}") { id isCompliant classification classificationBasis issuer { id authorisation homeMemberState } whitepaper { id status } complianceIssues { code } recommendations checkedAt } }`)).micaCheck;
    expect(q).toEqual({
      id: r.check_id,
      isCompliant: r.is_compliant,
      classification: r.classification,
      classificationBasis: r.classification_basis,
      issuer: { id: r.issuer.id, authorisation: r.issuer.authorisation, homeMemberState: r.issuer.home_member_state },
      whitepaper: { id: r.whitepaper.id, status: r.whitepaper.status },
      complianceIssues: r.compliance_issues.map((i: { code: string }) => ({ code: i.code })),
      recommendations: r.recommendations,
      checkedAt: r.checked_at,
    });
  });

  it('bad input is refused with the REST code, status and pointer', async () => {
    const r = await gqlRefused(t, MICA, 'INVALID_HASH', 422, { input: { assetType: 'USDC', issuerId: 'iss_circle_eu', whitepaperHash: 'abc' } });
    expect(r.errors![0].extensions.pointer).toBe('/whitepaper_hash');
    const rest = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/check', headers: t.headers, payload: { asset_type: 'USDC', issuer_id: 'iss_circle_eu', whitepaper_hash: 'abc' } });
    expect(rest.json().errors[0].code).toBe('INVALID_HASH');
    await gqlRefused(t, MICA, 'ISSUER_NOT_FOUND', 404, { input: { assetType: 'USDC', issuerId: 'iss_nobody', whitepaperHash: USDC_PAPER } });
  });

  it("another user's check is the REST not-found; a read-only key cannot run one", async () => {
    const c = (await gqlOk(t, MICA, { input: { assetType: 'GCU', issuerId: 'iss_platform', whitepaperHash: USDC_PAPER } })).runMicaCheck;
    const rest = await get(`/api/v2/regtech/mica/checks/${c.id}`, other.headers);
    expect(rest.statusCode).toBe(404);
    await gqlRefused(t, `{ micaCheck(id: "${c.id}") { id } }`, rest.json().errors[0].code, 404, undefined, other.headers);
    await gqlRefused(t, MICA, 'INSUFFICIENT_PERMISSIONS', 403, { input: { assetType: 'USDC', issuerId: 'iss_circle_eu', whitepaperHash: USDC_PAPER } }, readOnly.headers);
  });

  it('the register lists as REST lists it', async () => {
    const rest = (await get('/api/v2/regtech/mica/issuers')).json().data;
    const q = (await gqlOk(t, '{ micaIssuers(perPage: 100) { data { id name authorisation homeMemberState } paginatorInfo { total } } }')).micaIssuers;
    expect(q.paginatorInfo.total).toBe(rest.length);
    expect(q.data).toEqual(rest.map((i: any) => ({ id: i.id, name: i.name, authorisation: i.authorisation, homeMemberState: i.home_member_state })));
  });
});

const TRAVEL = /* GraphQL */ `
  mutation ($input: TravelRuleCheckInput!) {
    checkTravelRule(input: $input) { id transferId isCompliant riskLevel applicableJurisdiction applicableRegulations originatorVerified beneficiaryVerified
      thresholdAnalysis { amountUsd exceedsThreshold thresholdAmount fullIdentificationRequired thresholdCurrency thresholdInCurrency usdRate usdRateAsOf source asOf }
      sanctionsScreening { originatorCleared beneficiaryCleared screeningProvider screenedAt listVersion }
      complianceIssues { code description } recommendations checkedAt validUntil }
  }
`;

describe('Travel Rule checks over GraphQL', () => {
  let transferId: string;
  beforeAll(async () => {
    const a = await openFundedAccount(t, t.headers, '10000');
    const b = await openFundedAccount(t, t.headers, '0');
    const r = await t.app.inject({ method: 'POST', url: '/api/v2/transfers', headers: t.headers, payload: { from_account: a, to_account: b, amount: '3000.00', asset_code: 'USD', workflow_enabled: false } });
    expect(r.statusCode, r.body).toBe(201);
    transferId = r.json().data.uuid;
  });
  const input = (over: Record<string, unknown> = {}) => ({
    transferId,
    originator: { name: 'Alice Example', accountNumber: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
    beneficiary: { name: 'Bob Receiver', accountNumber: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' },
    amount: '3000.00',
    currency: 'USD',
    jurisdiction: 'US',
    ...over,
  });

  it('checks through the domain (at the US threshold, a missing VASP fails) and reads back as REST does', async () => {
    const c = (await gqlOk(t, TRAVEL, { input: input() })).checkTravelRule;
    expect(c).toMatchObject({ isCompliant: false, thresholdAnalysis: { exceedsThreshold: true, thresholdAmount: '3000.00', fullIdentificationRequired: true } });
    expect(c.complianceIssues.map((i: { code: string }) => i.code)).toEqual(['BENEFICIARY_VASP_MISSING']);
    const rest = await get(`/api/v2/regtech/travel-rule/checks/${c.id}`);
    expect(rest.statusCode, rest.body).toBe(200);
    const r = rest.json().data;
    const t_ = r.threshold_analysis;
    const s = r.sanctions_screening;
    expect(c).toEqual({
      id: r.check_id,
      transferId: r.transfer_id,
      isCompliant: r.is_compliant,
      riskLevel: r.risk_level,
      applicableJurisdiction: r.applicable_jurisdiction,
      applicableRegulations: r.applicable_regulations,
      originatorVerified: r.originator_verified,
      beneficiaryVerified: r.beneficiary_verified,
      thresholdAnalysis: {
        amountUsd: t_.amount_usd,
        exceedsThreshold: t_.exceeds_threshold,
        thresholdAmount: t_.threshold_amount,
        fullIdentificationRequired: t_.full_identification_required,
        thresholdCurrency: t_.threshold_currency,
        thresholdInCurrency: t_.threshold_in_currency,
        usdRate: t_.usd_rate,
        usdRateAsOf: t_.usd_rate_as_of,
        source: t_.source,
        asOf: t_.as_of,
      },
      sanctionsScreening: { originatorCleared: s.originator_cleared, beneficiaryCleared: s.beneficiary_cleared, screeningProvider: s.screening_provider, screenedAt: s.screened_at, listVersion: s.list_version },
      complianceIssues: r.compliance_issues,
      recommendations: r.recommendations,
      checkedAt: r.checked_at,
      validUntil: r.valid_until,
    });
    const q = (await gqlOk(t, `{ travelRuleCheck(id: "${c.id}") { id isCompliant } }`)).travelRuleCheck;
    expect(q).toEqual({ id: c.id, isCompliant: false });
  });

  it('recordTravelRuleTransfer runs the same check with the VASP named', async () => {
    const c = (
      await gqlOk(t, 'mutation ($i: TravelRuleTransferInput!) { recordTravelRuleTransfer(input: $i) { id isCompliant beneficiaryVerified } }', {
        i: { transferId, originatorName: 'Alice Example', originatorAccount: 'acct-1', beneficiaryName: 'Bob Receiver', beneficiaryVaspId: 'Example VASP AG', beneficiaryAccount: 'acct-2', amount: '3000.00', currency: 'USD', jurisdiction: 'US' },
      })
    ).recordTravelRuleTransfer;
    expect(c).toMatchObject({ isCompliant: true, beneficiaryVerified: true });
    expect((await get(`/api/v2/regtech/travel-rule/checks/${c.id}`)).json().data.is_compliant).toBe(true);
  });

  it("refusals carry the REST codes: unsupported jurisdiction, another user's transfer, a read-only key", async () => {
    await gqlRefused(t, TRAVEL, 'UNSUPPORTED_JURISDICTION', 422, { input: input({ jurisdiction: 'ZZ' }) });
    // Another user's transfer: the same 404 as REST.
    const restOther = await t.app.inject({
      method: 'POST',
      url: '/api/v1/regtech/travel-rule/check',
      headers: other.headers,
      payload: { transfer_id: transferId, originator: { name: 'Alice Example' }, beneficiary: { name: 'Bob Receiver' }, transfer_details: { amount: '3000.00', currency: 'USD' }, jurisdiction: 'US' },
    });
    expect(restOther.statusCode).toBe(404);
    await gqlRefused(t, TRAVEL, restOther.json().errors[0].code, 404, { input: input() }, other.headers);
    await gqlRefused(t, TRAVEL, 'INSUFFICIENT_PERMISSIONS', 403, { input: input() }, readOnly.headers);
  });
});

/** A completed GCU buy of the caller's (through its workflow). */
async function gcuBuy(headers: Headers, amount: string): Promise<string> {
  const acct = await openFundedAccount(t, headers, '100.00');
  const r = await t.app.inject({ method: 'POST', url: '/api/v2/gcu/buy', headers, payload: { account_uuid: acct, spend_asset: 'USD', amount } });
  expect(r.statusCode, r.body).toBe(202);
  await (await getTemporalClient()).workflow.getHandle(r.json().data.workflow_id).result();
  return r.json().data.id;
}

const REPORT_FIELDS = 'id reportType status transactionId transactionKind transactionReferenceNumber isin jurisdiction competentAuthority { country name } xsdValidated xsdReason deadlineAt overdue createdAt';

describe('MiFID II reports over GraphQL', () => {
  let reportId: string;

  it('a report built over GraphQL is the one REST reads, with the same file', async () => {
    const buyId = await gcuBuy(t.headers, '10');
    const created = (
      await gqlOk(t, `mutation ($i: MifidReportInput!) { createMifidReport(input: $i) { ${REPORT_FIELDS} } }`, {
        i: { transactionId: buyId, reportType: 'NEWT', jurisdiction: 'LU', client: { firstName: 'Jean-Marc', surname: 'de la Fontaine', birthDate: '1985-04-17', nationality: 'FR' } },
      })
    ).createMifidReport;
    reportId = created.id;
    expect(created).toMatchObject({ reportType: 'NEWT', transactionId: buyId, transactionKind: 'basket_buy', jurisdiction: 'LU' });
    const r = (await get(`/api/v2/regtech/mifid/reports/${reportId}`)).json().data;
    const q = (await gqlOk(t, `{ mifidReport(id: "${reportId}") { ${REPORT_FIELDS} xml } }`)).mifidReport;
    expect(q).toEqual({
      id: r.id,
      reportType: r.report_type,
      status: r.status,
      transactionId: r.transaction_id,
      transactionKind: r.transaction_kind,
      transactionReferenceNumber: r.transaction_reference_number,
      isin: r.isin,
      jurisdiction: r.jurisdiction,
      competentAuthority: r.competent_authority,
      xsdValidated: r.xsd_validated,
      xsdReason: r.xsd_reason,
      deadlineAt: r.deadline_at,
      overdue: r.overdue,
      createdAt: r.created_at,
      xml: (await get(`/api/v2/regtech/mifid/reports/${reportId}/xml`)).body,
    });
    const list = (await gqlOk(t, `{ mifidReports(transactionId: "${buyId}") { data { id } paginatorInfo { total } } }`)).mifidReports;
    expect(list).toEqual({ data: [{ id: reportId }], paginatorInfo: { total: 1 } });
  }, 60_000);

  it('a second NEWT of the same trade is refused as REST refuses it; another user gets the REST not-found', async () => {
    const restOther = await get(`/api/v2/regtech/mifid/reports/${reportId}`, other.headers);
    expect(restOther.statusCode).toBe(404);
    await gqlRefused(t, `{ mifidReport(id: "${reportId}") { id } }`, restOther.json().errors[0].code, 404, undefined, other.headers);
    await gqlRefused(t, `{ mifidReports(status: "bogus") { data { id } } }`, 'INVALID_STATUS_FILTER', 422);
    await gqlRefused(t, `mutation { submitMifidReport(id: "${reportId}") { id } }`, 'INSUFFICIENT_PERMISSIONS', 403, undefined, readOnly.headers);
    await gqlRefused(t, `mutation { submitMifidReport(id: "${reportId}") { id } }`, restOther.json().errors[0].code, 404, undefined, other.headers);
  });
});

describe('compliance holds over GraphQL (operators)', () => {
  it('are refused to customers with ADMIN_REQUIRED and listed for operators as REST lists them', async () => {
    await gqlRefused(t, '{ complianceHolds { data { id } } }', 'ADMIN_REQUIRED', 403);
    await gqlRefused(t, 'mutation { releaseComplianceHold(id: "hold_x") { id } }', 'ADMIN_REQUIRED', 403);
    const rest = await get('/api/v2/regtech/holds', admin.headers);
    expect(rest.statusCode, rest.body).toBe(200);
    const q = (await gqlOk(t, '{ complianceHolds(perPage: 100) { data { id status } paginatorInfo { total } } }', undefined, admin.headers)).complianceHolds;
    expect(q.paginatorInfo.total).toBe(rest.json().meta?.total ?? rest.json().data.length);
    expect(q.data).toEqual(rest.json().data.map((h: any) => ({ id: h.id, status: h.status })));
  });

  it('an unknown hold is the REST not-found', async () => {
    const rest = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/holds/hold_unknown/reject', headers: admin.headers, payload: {} });
    expect(rest.statusCode).toBe(404);
    const r = await gql(t, 'mutation { rejectComplianceHold(id: "hold_unknown", note: "x") { id } }', undefined, admin.headers);
    expect(r.errors?.[0].extensions).toMatchObject({ code: rest.json().errors[0].code, status: 404 });
  });
});

describe('register writes over GraphQL (operators)', () => {
  const ISSUER = 'mutation ($i: MicaIssuerInput!) { addMicaIssuer(input: $i) { id name lei authorisation homeMemberState authorisedAt notes } }';
  const PAPER = 'mutation ($i: MicaWhitepaperInput!) { registerMicaWhitepaper(input: $i) { id assetCode issuerId sha256 version status publishedAt } }';

  it('an issuer and its white paper added over GraphQL are in the REST register, and a MiCA check passes with them', async () => {
    const issuer = (await gqlOk(t, ISSUER, { i: { name: 'Graph EMI SA', authorisation: 'e_money_institution', homeMemberState: 'lu', authorisedAt: '2026-01-15' } }, admin.headers)).addMicaIssuer;
    expect(issuer).toMatchObject({ authorisation: 'e_money_institution', homeMemberState: 'LU', lei: null });
    const restIssuer = (await get('/api/v2/regtech/mica/issuers')).json().data.find((i: { id: string }) => i.id === issuer.id);
    expect(issuer).toEqual({ id: restIssuer.id, name: restIssuer.name, lei: restIssuer.lei, authorisation: restIssuer.authorisation, homeMemberState: restIssuer.home_member_state, authorisedAt: restIssuer.authorised_at, notes: restIssuer.notes });

    const hash = sha('Graph EMI e-money token white paper v1');
    const paper = (await gqlOk(t, PAPER, { i: { assetCode: 'usdc', issuerId: issuer.id, sha256: hash.toUpperCase(), version: '1', publishedAt: '2026-11-01' } }, admin.headers)).registerMicaWhitepaper;
    expect(paper).toMatchObject({ assetCode: 'USDC', issuerId: issuer.id, sha256: hash, status: 'registered' });
    const restPaper = (await get('/api/v2/regtech/mica/whitepapers')).json().data.find((w: { id: string }) => w.id === paper.id);
    expect(paper).toEqual({ id: restPaper.id, assetCode: restPaper.asset_code, issuerId: restPaper.issuer_id, sha256: restPaper.sha256, version: restPaper.version, status: restPaper.status, publishedAt: restPaper.published_at });
    expect((await gqlOk(t, MICA, { input: { assetType: 'emt', issuerId: issuer.id, whitepaperHash: hash } })).runMicaCheck.isCompliant).toBe(true);

    // The same paper again: the domain's refusal, as REST answers it.
    const again = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/mica/whitepapers', headers: admin.headers, payload: { asset_code: 'USDC', issuer_id: issuer.id, sha256: hash, version: '1', published_at: '2026-11-01' } });
    await gqlRefused(t, PAPER, again.json().errors[0].code, again.statusCode, { i: { assetCode: 'USDC', issuerId: issuer.id, sha256: hash, version: '1', publishedAt: '2026-11-01' } }, admin.headers);
    expect(again.json().errors[0].code).toBe('WHITEPAPER_EXISTS');
  });

  it('the REST body rules, operator-only and write permission apply', async () => {
    const bad = await gqlRefused(t, ISSUER, 'VALIDATION_ERROR', 422, { i: { name: 'X', authorisation: 'bank' } }, admin.headers);
    expect(bad.errors![0].extensions.pointer).toBe('/authorisation');
    const lei = await gqlRefused(t, ISSUER, 'VALIDATION_ERROR', 422, { i: { name: 'X', authorisation: 'casp', lei: 'short' } }, admin.headers);
    expect(lei.errors![0].extensions.pointer).toBe('/lei');
    const shortHash = await gqlRefused(t, PAPER, 'VALIDATION_ERROR', 422, { i: { assetCode: 'USDC', issuerId: 'iss_circle_eu', sha256: 'abc', version: '1', publishedAt: '2026-11-01' } }, admin.headers);
    expect(shortHash.errors![0].extensions.pointer).toBe('/sha256');
    await gqlRefused(t, PAPER, 'ISSUER_NOT_FOUND', 404, { i: { assetCode: 'USDC', issuerId: 'iss_nobody', sha256: sha('nobody'), version: '1', publishedAt: '2026-11-01' } }, admin.headers);
    await gqlRefused(t, ISSUER, 'ADMIN_REQUIRED', 403, { i: { name: 'X', authorisation: 'casp' } });
    const readOnlyAdmin = await createTestUser({ admin: true, permissions: ['read'] });
    await gqlRefused(t, ISSUER, 'INSUFFICIENT_PERMISSIONS', 403, { i: { name: 'X', authorisation: 'casp' } }, readOnlyAdmin.headers);
    expect((await get('/api/v2/regtech/mica/issuers')).json().data.map((i: { name: string }) => i.name)).not.toContain('X');
  });

  it('a MiFID instrument registered over GraphQL is in the REST register; identifiers are checked by the domain', async () => {
    const MIFID = 'mutation ($i: MifidInstrumentInput!) { registerMifidInstrument(input: $i) { assetCode isin cfi fullName notes updatedAt } }';
    const entry = { assetCode: 'weth', isin: 'ZZWETH000010', cfi: 'MMXXXX', fullName: 'Wrapped Ether (sandbox test instrument)' };
    await gqlRefused(t, MIFID, 'ADMIN_REQUIRED', 403, { i: entry });
    const badIsin = await gqlRefused(t, MIFID, 'INVALID_ISIN', 422, { i: { ...entry, isin: 'ZZWETH000011' } }, admin.headers);
    expect(badIsin.errors![0].extensions.pointer).toBe('/isin');
    await gqlRefused(t, MIFID, 'VALIDATION_ERROR', 422, { i: { ...entry, fullName: '' } }, admin.headers);
    const created = (await gqlOk(t, MIFID, { i: entry }, admin.headers)).registerMifidInstrument;
    expect(created).toMatchObject({ assetCode: 'WETH', isin: 'ZZWETH000010', notes: null });
    const rest = (await get('/api/v2/regtech/mifid/instruments')).json().data.find((i: { asset_code: string }) => i.asset_code === 'WETH');
    expect(created).toEqual({ assetCode: rest.asset_code, isin: rest.isin, cfi: rest.cfi, fullName: rest.full_name, notes: rest.notes, updatedAt: rest.updated_at });
  });
});

describe('sanctions screening over GraphQL', () => {
  const SCREEN = 'mutation ($n: [String!]!) { screenSanctions(names: $n) { listVersion results { name hit score threshold matches { entryId name matchedName sdnType programs score } } } }';
  const STATUS = '{ sanctionsListStatus { id source version entryCount nameCount loadedAt loadedBy ageHours } }';

  it('screens as REST screens (same results and list version); the status is the REST one', async () => {
    const names = ['Manuel Antonio Noriega', 'John Smith'];
    const g = (await gqlOk(t, SCREEN, { n: names })).screenSanctions;
    const r = (await t.app.inject({ method: 'POST', url: '/api/v2/regtech/sanctions/screen', headers: t.headers, payload: { names } })).json().data;
    expect(g.listVersion).toBe(r.list_version);
    expect(g.results).toEqual(
      r.results.map((x: any) => ({
        name: x.name,
        hit: x.hit,
        score: x.score,
        threshold: x.threshold,
        matches: x.matches.map((m: any) => ({ entryId: m.entry_id, name: m.name, matchedName: m.matched_name, sdnType: m.sdn_type, programs: m.programs, score: m.score })),
      })),
    );
    expect(g.results[0]).toMatchObject({ hit: true, matches: [expect.objectContaining({ entryId: 1572, programs: ['CUBA'] })] });
    expect(g.results[1]).toMatchObject({ hit: false, matches: [] });

    const s = (await gqlOk(t, STATUS)).sanctionsListStatus;
    const rs = (await get('/api/v2/regtech/sanctions/status')).json().data;
    const { ageHours, ...rest } = s;
    expect(rest).toEqual({ id: rs.id, source: rs.source, version: rs.version, entryCount: rs.entry_count, nameCount: rs.name_count, loadedAt: rs.loaded_at, loadedBy: rs.loaded_by });
    expect(ageHours).toBeCloseTo(rs.age_hours, 1);
    expect(s.version).toBe(g.listVersion);
  });

  it('refuses what REST refuses: no names, a blank name, a read-only key', async () => {
    const empty = await gqlRefused(t, SCREEN, 'VALIDATION_ERROR', 422, { n: [] });
    expect(empty.errors![0].extensions.pointer).toBe('/names');
    const blank = await t.app.inject({ method: 'POST', url: '/api/v2/regtech/sanctions/screen', headers: t.headers, payload: { names: ['  '] } });
    await gqlRefused(t, SCREEN, blank.json().errors[0].code, blank.statusCode, { n: ['  '] });
    await gqlRefused(t, SCREEN, 'INSUFFICIENT_PERMISSIONS', 403, { n: ['John Smith'] }, readOnly.headers);
  });

  it('operators reload the list through the domain (loadedBy is the operator); customers are refused', async () => {
    const RELOAD = 'mutation { reloadSanctionsList { id version entryCount loadedAt loadedBy loaded } }';
    await gqlRefused(t, RELOAD, 'ADMIN_REQUIRED', 403);
    const before = (await get('/api/v2/regtech/sanctions/status')).json().data;
    const r = (await gqlOk(t, RELOAD, undefined, admin.headers)).reloadSanctionsList;
    expect(r).toMatchObject({ loaded: true, loadedBy: admin.userId, version: before.version, entryCount: before.entry_count });
    expect(Date.parse(r.loadedAt)).toBeGreaterThan(Date.parse(before.loaded_at));
    expect((await get('/api/v2/regtech/sanctions/status')).json().data).toMatchObject({ loaded_at: r.loadedAt, loaded_by: admin.userId });
  }, 120_000);
});
