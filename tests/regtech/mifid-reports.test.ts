import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../domain/auth/api-keys';
import { getPool } from '../../domain/db/pool';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { loadConfig } from '../../domain/platform/config';
import { newId } from '../../domain/platform/ids';
import { buildReportXml, reportingDeadline, SandboxAuthority, validateReportXml } from '../../domain/regtech/mifid';
import { xsdDecimal } from '../../domain/regtech/mifid/auth016';
import { getTemporalClient } from '../../domain/temporal/client';
import { createTestApp, createTestUser, type TestApp, type TestUser } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { custodyAddress, fundBook, waitSwap } from '../defi/helpers';
import { openFundedAccount } from '../transfers/helpers';

const LEI = 'SANDBOXMIFIDFIRM0033';
const PERSON = { first_name: 'Jean-Marc', surname: 'de la Fontaine', birth_date: '1985-04-17', nationality: 'FR' };
const REPORTS = '/api/v2/regtech/mifid/reports';

let t: TestApp;
let w: TestWorker;
let other: TestUser;
let buyId: string;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
  other = await createTestUser();
  buyId = await gcuBuy(t.headers, '10');
}, 120_000);
afterAll(async () => {
  await w?.stop();
  await t?.close();
});

type Headers = Record<string, string>;
const post = (url: string, payload: unknown, headers: Headers = t.headers) => t.app.inject({ method: 'POST', url, headers, payload: payload as object });
const get = (url: string, headers: Headers = t.headers) => t.app.inject({ method: 'GET', url, headers });
const report = (body: Record<string, unknown>, headers: Headers = t.headers) => post(REPORTS, { jurisdiction: 'LU', ...body }, headers);
const submit = (id: string, headers: Headers = t.headers) => post(`${REPORTS}/${id}/submit`, {}, headers);
const count = async (table: string) => (await getPool().query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
const events = async (type: string, aggregateId?: string) =>
  (await getPool().query<{ data: Record<string, any> }>('SELECT data FROM platform_events WHERE type = $1 AND ($2::text IS NULL OR aggregate_id = $2) ORDER BY occurred_at', [type, aggregateId ?? null])).rows.map((r) => r.data);

/** A completed GCU buy of the caller's (a real buy through its workflow), by id. */
async function gcuBuy(headers: Headers, amount: string): Promise<string> {
  const acct = await openFundedAccount(t, headers, '100.00');
  const r = await post('/api/v2/gcu/buy', { account_uuid: acct, spend_asset: 'USD', amount }, headers);
  expect(r.statusCode, r.body).toBe(202);
  await (await getTemporalClient()).workflow.getHandle(r.json().data.workflow_id).result();
  expect((await get(`/api/v2/gcu/buy/${r.json().data.id}`, headers)).json().data.status).toBe('completed');
  return r.json().data.id;
}

const validator = (type: string) => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const info = EVENT_CATALOG.find((e) => e.type === type)!;
  expect(info.produced).toBe(true);
  return ajv.compile(info.data_schema);
};

describe('NEWT for a real GCU buy', () => {
  let reportId: string;

  it('builds an RTS 22 report validated against ESMA’s schemas, with its T+1 deadline and the generated event', async () => {
    const r = await report({ transaction_id: buyId, report_type: 'NEWT', client: PERSON });
    expect(r.statusCode, r.body).toBe(201);
    const d = r.json().data;
    reportId = d.id;
    const { rows } = await getPool().query('SELECT completed_at, units::text, execution_price::text FROM basket_buys WHERE id = $1', [buyId]);
    expect(d).toMatchObject({
      report_type: 'NEWT',
      status: 'validated',
      xsd_validated: true,
      xsd_reason: null,
      validation_issues: [],
      transaction_id: buyId,
      transaction_kind: 'basket_buy',
      transaction_reference_number: buyId.replace('_', '').toUpperCase(),
      isin: 'ZZGCU0000018',
      jurisdiction: 'LU',
      competent_authority: { country: 'LU' },
      trade_executed_at: rows[0].completed_at.toISOString(),
      deadline_at: reportingDeadline(rows[0].completed_at).toISOString(),
      overdue: false,
      cancels_report_id: null,
      authority_feedback: null,
      links: { xml: `${REPORTS}/${d.id}/xml` },
    });
    expect(d.id).toMatch(/^mfr_[0-9a-f]{32}$/);

    const file = await get(`${REPORTS}/${d.id}/xml`);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toContain('application/xml');
    const xml = file.body;
    for (const part of [
      '<BizData xmlns="urn:iso:std:iso:20022:tech:xsd:head.003.001.01">',
      '<MsgDefIdr>auth.016.001.01</MsgDefIdr>',
      `<TxId>${d.transaction_reference_number}</TxId>`,
      `<ExctgPty>${LEI}</ExctgPty>`,
      '<Id>FR19850417JEANMFONTA</Id>',
      '<CtryOfBrnch>LU</CtryOfBrnch>',
      `<LEI>${LEI}</LEI>`,
      `<TradDt>${rows[0].completed_at.toISOString()}</TradDt>`,
      '<TradgCpcty>DEAL</TradgCpcty>',
      '<Unit>10</Unit>',
      `<Amt Ccy="USD">${rows[0].execution_price.replace(/\.?0+$/, '')}</Amt>`,
      '<TradVn>XOFF</TradVn>',
      '<Id>ZZGCU0000018</Id>',
    ]) {
      expect(xml).toContain(part);
    }
    // The client buys from the platform: the customer is the buyer, the platform the seller.
    expect(xml.indexOf('<Buyr>')).toBeLessThan(xml.indexOf('FR19850417JEANMFONTA'));
    expect(xml.indexOf('<Sellr>')).toBeLessThan(xml.indexOf(`<LEI>${LEI}</LEI>`));

    // The validator ran on this very file: an element broken in it fails.
    const dir = loadConfig().mifidXsdDir;
    expect(validateReportXml(xml, dir).validated).toBe(true);
    const broken = validateReportXml(xml.replace('<TradgCpcty>DEAL</TradgCpcty>', '<TradgCpcty>OWN</TradgCpcty>'), dir);
    expect(broken.validated).toBe(false);
    expect(broken.issues[0].message).toContain('TradgCpcty');

    const generated = await events('compliance.report.generated', d.id);
    expect(generated).toHaveLength(1);
    const v = validator('compliance.report.generated');
    expect(v(generated[0]), JSON.stringify(v.errors)).toBe(true);
    expect(generated[0]).toMatchObject({ framework: 'mifid_ii', report_id: d.id, report_type: 'NEWT', status: 'validated', xsd_validated: true, deadline_at: d.deadline_at });
  });

  it('is read back by its owner only; another user or environment gets 404; the list is paginated', async () => {
    expect((await get(`${REPORTS}/${reportId}`)).json().data.id).toBe(reportId);
    for (const headers of [other.headers, { authorization: `Bearer ${(await createApiKey({ userId: t.user.userId, name: 'prod', environment: 'production', permissions: ['read', 'write'] })).value}` }]) {
      for (const url of [`${REPORTS}/${reportId}`, `${REPORTS}/${reportId}/xml`]) {
        const r = await get(url, headers);
        expect(r.statusCode).toBe(404);
        expect(r.json().errors[0].code).toBe('REPORT_NOT_FOUND');
      }
      expect((await submit(reportId, headers)).statusCode).toBe(404);
      expect((await get(REPORTS, headers)).json().meta.total).toBe(0);
    }
    const list = await get(`${REPORTS}?per_page=1&status=validated`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().meta).toMatchObject({ current_page: 1, per_page: 1, total: 1 });
    expect(list.json().data[0].id).toBe(reportId);
    expect((await get(`${REPORTS}?transaction_id=nope`)).json().meta.total).toBe(0);
    expect((await get(`${REPORTS}?status=bogus`)).statusCode).toBe(422);
  });

  it('a second NEWT while one is on its way is refused; CANC before any NEWT was sent is refused', async () => {
    const again = await report({ transaction_id: buyId, report_type: 'NEWT', client: PERSON });
    expect(again.statusCode).toBe(422);
    expect(again.json().errors[0]).toMatchObject({ code: 'REPORT_IN_PROGRESS', source: { pointer: '/transaction_id' } });
    const cancel = await report({ transaction_id: buyId, report_type: 'CANC' });
    expect(cancel.statusCode).toBe(422);
    expect(cancel.json().errors[0]).toMatchObject({ code: 'NO_REPORT_TO_CANCEL', source: { pointer: '/report_type' } });
  });

  it('bad input is refused with a pointer and stores nothing (report nor event)', async () => {
    const generated = async () => (await events('compliance.report.generated')).length;
    const before = [await count('mifid_reports'), await generated()];
    const pending = (await post('/api/v2/gcu/buy', { account_uuid: await openFundedAccount(t, other.headers, '0'), spend_asset: 'USD', amount: '1' }, other.headers)).json().data;
    const cases: Array<[Record<string, unknown>, Headers, number, string, string]> = [
      [{ transaction_id: 'gbuy_00000000000000000000000000000000', report_type: 'NEWT', client: PERSON }, t.headers, 404, 'TRANSACTION_NOT_FOUND', '/transaction_id'],
      [{ transaction_id: buyId, report_type: 'NEWT', client: PERSON }, other.headers, 404, 'TRANSACTION_NOT_FOUND', '/transaction_id'],
      [{ transaction_id: buyId, report_type: 'CANC' }, other.headers, 404, 'TRANSACTION_NOT_FOUND', '/transaction_id'],
      [{ transaction_id: buyId, report_type: 'NEWT', client: PERSON, jurisdiction: 'US' }, t.headers, 422, 'UNSUPPORTED_JURISDICTION', '/jurisdiction'],
      [{ transaction_id: buyId, report_type: 'NEWT', client: PERSON, jurisdiction: 'GB' }, t.headers, 422, 'UNSUPPORTED_JURISDICTION', '/jurisdiction'],
      [{ transaction_id: buyId, report_type: 'NEWT', client: { lei: '506700GE1G29325QX364' } }, t.headers, 422, 'INVALID_LEI', '/client/lei'],
      [{ transaction_id: buyId, report_type: 'NEWT', client: { ...PERSON, nationality: 'QQ' } }, t.headers, 422, 'INVALID_COUNTRY', '/client/nationality'],
      [{ transaction_id: buyId, report_type: 'NEWT' }, t.headers, 422, 'CLIENT_IDENTIFICATION_REQUIRED', '/client'],
      [{ transaction_id: buyId, report_type: 'NEWS', client: PERSON }, t.headers, 422, 'VALIDATION_ERROR', '/report_type'],
      [{ transaction_id: pending.id, report_type: 'NEWT', client: PERSON }, other.headers, 422, 'TRANSACTION_NOT_EXECUTED', '/transaction_id'],
    ];
    for (const [body, headers, status, code, pointer] of cases) {
      const r = await report(body, headers);
      expect(r.statusCode, `${code}: ${r.body}`).toBe(status);
      expect(r.json().errors[0]).toMatchObject({ code, source: { pointer } });
    }
    expect([await count('mifid_reports'), await generated()]).toEqual(before);
  });

  it('a malformed LEI in the settings refuses every build (503, nothing stored)', async () => {
    const before = await count('mifid_reports');
    const buy = await gcuBuy(t.headers, '1');
    for (const [name, value] of [['MIFID_FIRM_LEI', 'SANDBOXMIFIDFIRM0034'], ['MIFID_SUBMITTING_LEI', 'not-a-lei']] as const) {
      process.env[name] = value;
      try {
        const r = await report({ transaction_id: buy, report_type: 'NEWT', client: PERSON });
        expect(r.statusCode).toBe(503);
        expect(r.json().errors[0].code).toBe('MIFID_SETTINGS_INVALID');
        expect(r.json().errors[0].detail).toContain(name);
      } finally {
        delete process.env[name];
      }
    }
    expect(await count('mifid_reports')).toBe(before);
    // A valid LEI of another firm in the setting is used as given.
    process.env.MIFID_SUBMITTING_LEI = '7LTWFZYICNSX8D621K86';
    try {
      const r = await report({ transaction_id: buy, report_type: 'NEWT', client: { lei: 'HWUPKR0MPOU8FGXBT394' } });
      expect(r.statusCode, r.body).toBe(201);
      const xml = (await get(`${REPORTS}/${r.json().data.id}/xml`)).body;
      expect(xml).toContain('<SubmitgPty>7LTWFZYICNSX8D621K86</SubmitgPty>');
      expect(xml).toContain(`<ExctgPty>${LEI}</ExctgPty>`);
      expect(xml).toContain('<LEI>HWUPKR0MPOU8FGXBT394</LEI>');
    } finally {
      delete process.env.MIFID_SUBMITTING_LEI;
    }
  });
});

describe('lifecycle with the sandbox competent authority', () => {
  it('accepts a valid NEWT, rejects a second NEWT of the same TRN, cancels with a linked CANC, then takes a new NEWT', async () => {
    const buy = await gcuBuy(t.headers, '2');
    const first = (await report({ transaction_id: buy, report_type: 'NEWT', client: PERSON })).json().data;
    const accepted = await submit(first.id);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().data).toMatchObject({ status: 'accepted', authority_feedback: { status: 'ACPT', errors: [] } });
    expect(accepted.json().data.submitted_at).not.toBeNull();
    expect(accepted.json().data.decided_at).not.toBeNull();
    expect(accepted.json().data.authority_feedback.feedback_id).toMatch(/^SBX[0-9A-F]{24}$/);
    const decided = await submit(first.id);
    expect(decided.statusCode).toBe(422);
    expect(decided.json().errors[0].code).toBe('REPORT_ALREADY_DECIDED');

    // A second NEWT may be built once the first is decided, but the authority has that TRN on file.
    const dup = (await report({ transaction_id: buy, report_type: 'NEWT', client: PERSON })).json().data;
    expect(dup.transaction_reference_number).toBe(first.transaction_reference_number);
    const rejected = (await submit(dup.id)).json().data;
    expect(rejected).toMatchObject({ status: 'rejected', authority_feedback: { status: 'RJCT', errors: [{ code: 'DUPLICATE_TRN' }] } });

    // CANC cancels the accepted NEWT (not the rejected one) and links to it.
    const cancel = await report({ transaction_id: buy, report_type: 'CANC' });
    expect(cancel.statusCode, cancel.body).toBe(201);
    const c = cancel.json().data;
    expect(c).toMatchObject({ report_type: 'CANC', status: 'validated', xsd_validated: true, cancels_report_id: first.id, deadline_at: null, transaction_reference_number: first.transaction_reference_number });
    const cxml = (await get(`${REPORTS}/${c.id}/xml`)).body;
    expect(cxml).toMatch(/<Cxl>\s*<TxId>[A-Z0-9]+<\/TxId>\s*<ExctgPty>SANDBOXMIFIDFIRM0033<\/ExctgPty>\s*<SubmitgPty>SANDBOXMIFIDFIRM0033<\/SubmitgPty>\s*<\/Cxl>/);
    expect((await get(`${REPORTS}/${first.id}`)).json().data.cancelled_by_report_id).toBe(c.id);
    const twice = await report({ transaction_id: buy, report_type: 'CANC' });
    expect(twice.json().errors[0]).toMatchObject({ code: 'REPORT_ALREADY_CANCELLED', source: { pointer: '/report_type' } });
    expect((await submit(c.id)).json().data).toMatchObject({ status: 'accepted', authority_feedback: { status: 'ACPT' } });

    // The TRN is off file: a corrected NEWT is accepted.
    const again = (await report({ transaction_id: buy, report_type: 'NEWT', client: { lei: 'HWUPKR0MPOU8FGXBT394' } })).json().data;
    expect((await submit(again.id)).json().data.status).toBe('accepted');
    const generated = await events('compliance.report.generated');
    const v = validator('compliance.report.generated');
    for (const g of generated) expect(v(g), JSON.stringify(v.errors)).toBe(true);
    expect(generated.find((g) => g.report_id === c.id)).toMatchObject({ report_type: 'CANC', cancels_report_id: first.id, deadline_at: null });
  });

  it('the sandbox authority rejects a file failing the schemas and a CANC of a TRN it does not have; re-sending gets the same answer', async () => {
    const dir = loadConfig().mifidXsdDir;
    const authority = new SandboxAuthority(dir);
    const hdr = { from: LEI, to: 'LU', businessMessageId: 'MFRTEST', createdAt: new Date() };
    const newt = buildReportXml(hdr, {
      type: 'NEWT', transactionReferenceNumber: 'SANDBOXTEST1', executingLei: LEI, investmentFirm: true, submittingLei: LEI, buyer: { lei: 'HWUPKR0MPOU8FGXBT394' }, seller: { lei: LEI },
      tradedAt: new Date(), capacity: 'DEAL', quantity: '1', price: '1.1', priceCurrency: 'USD', venue: 'XOFF', isin: 'ZZGCU0000018', investmentDecisionAlgo: 'A', executionAlgo: 'A',
    });
    const bad = await authority.submit({ reportId: newId('mfr'), environment: 'sandbox', jurisdiction: 'LU', xml: newt.replace('<Unit>1</Unit>', '<Unit>0</Unit>') });
    expect(bad).toMatchObject({ status: 'RJCT', errors: [{ code: 'XSD_INVALID', message: expect.stringContaining('Unit') }] });
    const id = newId('mfr');
    expect((await authority.submit({ reportId: id, environment: 'sandbox', jurisdiction: 'LU', xml: newt })).status).toBe('ACPT');
    expect((await authority.submit({ reportId: id, environment: 'sandbox', jurisdiction: 'LU', xml: newt })).status).toBe('ACPT');
    expect((await authority.submit({ reportId: newId('mfr'), environment: 'sandbox', jurisdiction: 'LU', xml: newt })).errors[0].code).toBe('DUPLICATE_TRN');
    const cxl = buildReportXml(hdr, { type: 'CANC', transactionReferenceNumber: 'SANDBOXTEST2', executingLei: LEI, submittingLei: LEI });
    expect((await authority.submit({ reportId: newId('mfr'), environment: 'sandbox', jurisdiction: 'LU', xml: cxl })).errors[0].code).toBe('TRN_NOT_FOUND');
  });

  it('without the schemas a report stays draft (xsd_validated false, with the reason) and is not submitted; once they are back, submit validates and sends it', async () => {
    const buy = await gcuBuy(t.headers, '3');
    const empty = mkdtempSync(path.join(tmpdir(), 'no-xsd-'));
    process.env.MIFID_XSD_DIR = empty;
    let id: string;
    try {
      const r = await report({ transaction_id: buy, report_type: 'NEWT', client: PERSON });
      expect(r.statusCode, r.body).toBe(201);
      const d = r.json().data;
      id = d.id;
      expect(d).toMatchObject({ status: 'draft', xsd_validated: false, validation_issues: [{ code: 'XSD_SCHEMA_UNAVAILABLE' }] });
      expect(d.xsd_reason).toContain(`MIFID_XSD_DIR (${empty}) lacks`);
      expect((await events('compliance.report.generated', id))[0]).toMatchObject({ status: 'draft', xsd_validated: false });
      const refused = await submit(id);
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors[0].code).toBe('REPORT_NOT_VALIDATED');
      expect((await get(`${REPORTS}/${id}`)).json().data.status).toBe('draft');
    } finally {
      delete process.env.MIFID_XSD_DIR;
      rmSync(empty, { recursive: true, force: true });
    }
    const sent = (await submit(id)).json().data;
    expect(sent).toMatchObject({ status: 'accepted', xsd_validated: true, xsd_reason: null, validation_issues: [] });
  });

  it('production: the authority adapter is not configured: 503 and the report stays validated', async () => {
    const u = await createTestUser({ environment: 'production' });
    const xml = buildReportXml({ from: LEI, to: 'DE', businessMessageId: 'MFRPROD', createdAt: new Date() }, { type: 'CANC', transactionReferenceNumber: 'PRODTRN1', executingLei: LEI, submittingLei: LEI });
    // A production NEWT row (production trades need real chains and rails): the submission is what is tested.
    const id = newId('mfr');
    await getPool().query(
      `INSERT INTO mifid_reports (id, environment, user_id, transaction_id, transaction_kind, report_type, jurisdiction, transaction_reference_number, status, xml, xsd_validated, trade_executed_at, deadline_at)
       VALUES ($1, 'production', $2, 'gbuy_prod', 'basket_buy', 'NEWT', 'DE', 'PRODTRN1', 'validated', $3, true, now(), now() + interval '1 day')`,
      [id, u.userId, xml],
    );
    const r = await submit(id, u.headers);
    expect(r.statusCode).toBe(503);
    expect(r.json().errors[0].code).toBe('MIFID_AUTHORITY_NOT_CONFIGURED');
    expect((await get(`${REPORTS}/${id}`, u.headers)).json().data).toMatchObject({ status: 'validated', submitted_at: null });
  });
});

describe('NEWT for a real DeFi swap', () => {
  it('needs the instrument in the register (operators maintain it); a client sale of it is reported as MTCH with the price converted to USD', async () => {
    const admin = await createTestUser({ admin: true });
    const acct = (await post('/api/v2/accounts', { name: 'defi' })).json().data.uuid as string;
    await fundBook(acct, 'USDC', 'arbitrum', '10000.000000');
    const swap = async (tokenIn: string, tokenOut: string, amount: string) => {
      const q = await post('/api/v1/defi/swap/quote', { chain: 'arbitrum', token_in: tokenIn, token_out: tokenOut, amount_in: amount });
      expect(q.statusCode, q.body).toBe(201);
      const x = await post('/api/v1/defi/swap/execute', { quote_id: q.json().data.quote_id, wallet_address: custodyAddress(acct, 'arbitrum'), account_id: acct, max_gas_price_gwei: 50, deadline_minutes: 10 });
      expect(x.statusCode, x.body).toBeLessThan(300);
      const done = await waitSwap(t, t.headers, x.json().data.swap_id ?? x.json().data.id);
      expect(done.status).toBe('completed');
      return done.swap_id ?? done.id;
    };
    const buyWeth = await swap('USDC', 'WETH', '1000');
    const refused = await report({ transaction_id: buyWeth, report_type: 'NEWT', client: PERSON });
    expect(refused.json().errors[0]).toMatchObject({ code: 'INSTRUMENT_NOT_REPORTABLE', source: { pointer: '/transaction_id' } });

    const entry = { asset_code: 'WETH', isin: 'ZZWETH000010', cfi: 'MMXXXX', full_name: 'Wrapped Ether (sandbox test instrument)' };
    expect((await post('/api/v2/regtech/mifid/instruments', entry)).statusCode).toBe(403);
    const badIsin = await post('/api/v2/regtech/mifid/instruments', { ...entry, isin: 'ZZWETH000011' }, admin.headers);
    expect(badIsin.json().errors[0]).toMatchObject({ code: 'INVALID_ISIN', source: { pointer: '/isin' } });
    expect((await post('/api/v2/regtech/mifid/instruments', { ...entry, cfi: 'mmx' }, admin.headers)).json().errors[0]).toMatchObject({ code: 'INVALID_CFI', source: { pointer: '/cfi' } });
    expect((await post('/api/v2/regtech/mifid/instruments', { ...entry, isin: 'ZZGCU0000018' }, admin.headers)).json().errors[0].code).toBe('ISIN_IN_USE');
    expect((await post('/api/v2/regtech/mifid/instruments', entry, admin.headers)).statusCode).toBe(201);
    expect((await get('/api/v2/regtech/mifid/instruments')).json().data.map((i: { asset_code: string }) => i.asset_code)).toEqual(['GCU', 'WETH']);

    // The client received WETH: a buy, quantity the WETH out, price USDC per WETH in USD at the platform's USDC rate.
    const r = await report({ transaction_id: buyWeth, report_type: 'NEWT', client: PERSON, jurisdiction: 'DE' });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().data).toMatchObject({ status: 'validated', transaction_kind: 'defi_swap', isin: 'ZZWETH000010', competent_authority: { country: 'DE' } });
    const { rows } = await getPool().query('SELECT amount_in::text, actual_output::text FROM defi_swaps WHERE id = $1', [buyWeth]);
    const xml = (await get(`${REPORTS}/${r.json().data.id}/xml`)).body;
    expect(xml).toContain('<TradgCpcty>MTCH</TradgCpcty>');
    // The schema allows 18 digits in all: 18-decimal token amounts are rounded (half even) to fit.
    expect(xml).toContain(`<Unit>${xsdDecimal(rows[0].actual_output, 17, 18)}</Unit>`);
    expect(xml).toMatch(/<Amt Ccy="USD">[0-9.]+<\/Amt>/);
    expect(xml).not.toContain('<InvstmtDcsnPrsn>');
    expect(xml.indexOf('FR19850417JEANMFONTA')).toBeLessThan(xml.indexOf('<Sellr>'));

    // Selling WETH back: the client is the seller.
    const sellWeth = await swap('WETH', 'USDC', '0.1');
    const sold = await report({ transaction_id: sellWeth, report_type: 'NEWT', client: PERSON, jurisdiction: 'DE' });
    expect(sold.statusCode, sold.body).toBe(201);
    const sxml = (await get(`${REPORTS}/${sold.json().data.id}/xml`)).body;
    expect(sxml.indexOf('<Sellr>')).toBeLessThan(sxml.indexOf('FR19850417JEANMFONTA'));
    expect(sxml).toContain('<Unit>0.1</Unit>');
  });
});

describe('T+1 deadline: the schedule’s workflow flags overdue reports once', () => {
  it('flags a report past its deadline and not sent, emits compliance.violation.detected once, leaves sent or in-time ones alone', async () => {
    const late = (await report({ transaction_id: await gcuBuy(t.headers, '4'), report_type: 'NEWT', client: PERSON })).json().data;
    const sent = (await report({ transaction_id: await gcuBuy(t.headers, '5'), report_type: 'NEWT', client: PERSON })).json().data;
    expect((await submit(sent.id)).json().data.status).toBe('accepted');
    const client = await getTemporalClient();
    const run = (at: string) => client.workflow.execute('mifidDeadlineWorkflow', { taskQueue: w.taskQueue, workflowId: `mifid-deadline-test-${newId('run')}`, args: [{ at }] });

    const before = await run(new Date(new Date(late.deadline_at).getTime() - 1).toISOString());
    expect(before.flagged.map((f: { reportId: string }) => f.reportId)).not.toContain(late.id);

    const at = new Date(new Date(late.deadline_at).getTime() + 60_000).toISOString();
    const first = await run(at);
    const flaggedIds = first.flagged.map((f: { reportId: string }) => f.reportId);
    expect(flaggedIds).toContain(late.id);
    expect(flaggedIds).not.toContain(sent.id);
    const got = (await get(`${REPORTS}/${late.id}`)).json().data;
    expect(got).toMatchObject({ overdue: true, flagged_at: at, status: 'validated' });
    expect((await get(`${REPORTS}/${sent.id}`)).json().data.overdue).toBe(false);

    const second = await run(new Date(new Date(at).getTime() + 3_600_000).toISOString());
    expect(second.flagged.map((f: { reportId: string }) => f.reportId)).not.toContain(late.id);
    const violations = await events('compliance.violation.detected', late.id);
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ framework: 'mifid_ii', code: 'REPORT_OVERDUE', report_id: late.id, subject_kind: 'basket_buy', subject_id: late.transaction_id, detected_at: at });
    const v = validator('compliance.violation.detected');
    expect(v(violations[0]), JSON.stringify(v.errors)).toBe(true);

    // Submitting it late still works; it stays flagged.
    expect((await submit(late.id)).json().data).toMatchObject({ status: 'accepted', overdue: true });
  });

  it('GET /regtech/status: MiFID II is active with the caller’s reports by status and the overdue count', async () => {
    const r = await get('/api/v2/regtech/status');
    expect(r.statusCode, r.body).toBe(200);
    const m = r.json().data.frameworks.mifid_ii;
    const { rows } = await getPool().query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM mifid_reports WHERE user_id = $1 AND environment = 'sandbox' GROUP BY status`,
      [t.user.userId],
    );
    const by = Object.fromEntries(rows.map((x) => [x.status, x.n]));
    const overdue = (await getPool().query(`SELECT count(*)::int AS n FROM mifid_reports WHERE user_id = $1 AND environment = 'sandbox' AND overdue`, [t.user.userId])).rows[0].n;
    expect(overdue).toBeGreaterThanOrEqual(1);
    expect(m).toMatchObject({ active: true, reports: rows.reduce((s, x) => s + x.n, 0), overdue });
    expect(m.by_status).toEqual({ draft: by.draft ?? 0, validated: by.validated ?? 0, submitted: by.submitted ?? 0, accepted: by.accepted ?? 0, rejected: by.rejected ?? 0 });
    expect(m.by_status.accepted).toBeGreaterThanOrEqual(5);
    expect(m.by_status.rejected).toBe(1);
    expect(m.last_report_at).not.toBeNull();
    // Overdue MiFID reports are not sanctions hits.
    expect(r.json().data.frameworks.sanctions.hits_last_30_days).toBe(0);
    const theirs = (await get('/api/v2/regtech/status', other.headers)).json().data.frameworks.mifid_ii;
    expect(theirs).toMatchObject({ active: true, reports: 0, overdue: 0 });
  });
});
