import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/app';
import { bigCamt053, SAMPLES } from './fixtures/samples';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => readFileSync(path.join(dir, name), 'utf8');
const BASE = '/api/v1/iso20022';

let ctx: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  ctx = await createTestApp();
});

afterAll(async () => {
  await ctx?.close();
});

const xmlPost = (url: string, payload: string, contentType = 'application/xml') =>
  ctx.app.inject({ method: 'POST', url: `${BASE}${url}`, headers: { ...ctx.headers, 'content-type': contentType }, payload });

describe('ISO 20022 routes', () => {
  it('GET /supported-types lists types and versions', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/supported-types`, headers: ctx.headers });
    expect(res.statusCode).toBe(200);
    const types = res.json().data.message_types;
    expect(types.find((t: any) => t.type === 'camt.053')).toMatchObject({
      default_version: 'camt.053.001.08',
      parse: ['camt.053.001.02', 'camt.053.001.04', 'camt.053.001.08'],
    });
  });

  it('requires authentication', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `${BASE}/supported-types` });
    expect(res.statusCode).toBe(401);
  });

  it('POST /generate returns XML by default and JSON with Accept: application/json', async () => {
    const xmlRes = await ctx.app.inject({ method: 'POST', url: `${BASE}/generate`, headers: ctx.headers, payload: SAMPLES['pacs.008'] });
    expect(xmlRes.statusCode).toBe(200);
    expect(xmlRes.headers['content-type']).toMatch(/^application\/xml/);
    expect(xmlRes.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08">/);

    const jsonRes = await ctx.app.inject({
      method: 'POST', url: `${BASE}/generate`, headers: { ...ctx.headers, accept: 'application/json' },
      payload: { ...SAMPLES['pain.001'], version: 'pain.001.001.11', business_application_header: true },
    });
    expect(jsonRes.statusCode).toBe(200);
    const data = jsonRes.json().data;
    expect(data).toMatchObject({ message_type: 'pain.001', version: 'pain.001.001.11', message_id: 'PAIN-RT-1', payment_information_ids: ['PI-1', 'PI-2'] });
    expect(data.business_application_header).toEqual({ version: 'head.001.001.02', business_message_id: 'PAIN-RT-1' });
    expect(data.xml).toContain('<Envelope>');
  });

  it('POST /generate rejects bad input with the error envelope', async () => {
    const res = await ctx.app.inject({
      method: 'POST', url: `${BASE}/generate`, headers: ctx.headers,
      payload: { ...SAMPLES['pacs.008'], transactions: undefined, amount: 12.5, currency: 'EUR', debtor: SAMPLES['pacs.008'].transactions[0].debtor, creditor: SAMPLES['pacs.008'].transactions[0].creditor },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ status: '422', code: 'INVALID_AMOUNT', source: { pointer: '/amount' } });
    const unsupported = await ctx.app.inject({ method: 'POST', url: `${BASE}/generate`, headers: ctx.headers, payload: { type: 'camt.052' } });
    expect(unsupported.statusCode).toBe(422);
    expect(unsupported.json().errors[0].code).toBe('UNSUPPORTED_MESSAGE_TYPE');
  });

  it('POST /parse reads application/xml and text/xml', async () => {
    for (const ct of ['application/xml', 'text/xml; charset=utf-8']) {
      const res = await xmlPost('/parse', fixture('camt.053.001.02.xml'), ct);
      expect(res.statusCode).toBe(200);
      const data = res.json().data;
      expect(data).toMatchObject({ message_type: 'camt.053', version: 'camt.053.001.02' });
      expect(data.statements[0].entries[0].details[0].creditor.account.iban).toBe('NL91ABNA0417164300');
    }
  });

  it('POST /validate accepts XML or JSON { xml } and reports errors with locations', async () => {
    const ok = await xmlPost('/validate', fixture('pain.001.001.03.ch.02.xml'));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toMatchObject({ valid: true, message_type: 'pain.001', version: 'pain.001.001.03', variant: 'ch.02', errors: [] });

    const broken = fixture('pain.001.001.03.xml').replace('<NbOfTxs>3</NbOfTxs>', '<NbOfTxs>5</NbOfTxs>').replace('<ChrgBr>SLEV</ChrgBr>', '<ChrgBr>NOPE</ChrgBr>');
    const res = await ctx.app.inject({ method: 'POST', url: `${BASE}/validate`, headers: ctx.headers, payload: { xml: broken } });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.valid).toBe(false);
    expect(data.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'business', rule: 'number-of-transactions', path: '/Document/CstmrCdtTrfInitn/GrpHdr/NbOfTxs', line: 7, column: 7 }),
        expect.objectContaining({ kind: 'xsd', path: '/Document/CstmrCdtTrfInitn/PmtInf[1]/ChrgBr' }),
      ]),
    );
  });

  it('POST /validate answers warnings (code, path, source) beside errors; only warnings keep valid true', async () => {
    const res = await xmlPost('/validate', fixture('camt.053.001.04.page2.xml'));
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ valid: true, message_type: 'camt.053', version: 'camt.053.001.04', errors: [] });
    expect(data.warnings).toHaveLength(6);
    expect(data.warnings[0]).toEqual({
      line: expect.any(Number), column: expect.any(Number), kind: 'business', code: 'statement-summary', rule: 'statement-summary',
      path: '/Document/BkToCstmrStmt/Stmt/TxsSummry/TtlNtries/NbOfNtries', message: expect.stringMatching(/^NbOfNtries is 7 but the statement contains 4 entries/),
      source: expect.stringContaining('TxsSummry'),
    });
    const refused = (await xmlPost('/validate', fixture('camt.053.001.04.page2.xml').replace('<Sts>PDNG</Sts>', '<Sts>PEND</Sts>'))).json().data;
    expect(refused).toMatchObject({ valid: false, errors: [{ kind: 'xsd', code: 'schema', source: 'ISO 20022 XSD camt.053.001.04' }] });
  });

  it('POST /validate handles a 1,000-entry statement', async () => {
    const xml = (await ctx.app.inject({ method: 'POST', url: `${BASE}/generate`, headers: ctx.headers, payload: bigCamt053(1000) })).body;
    const res = await xmlPost('/validate', xml);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ valid: true, errors: [], warnings: [] });
  });

  it('not XML → 400 INVALID_XML; unsupported type → 422', async () => {
    const notXml = await xmlPost('/parse', 'hello');
    expect(notXml.statusCode).toBe(400);
    expect(notXml.json().errors[0].code).toBe('INVALID_XML');
    const noXmlField = await ctx.app.inject({ method: 'POST', url: `${BASE}/validate`, headers: ctx.headers, payload: { message: 'x' } });
    expect([400, 422]).toContain(noXmlField.statusCode);
    const camt052 = await xmlPost('/validate', '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.08"><BkToCstmrAcctRpt/></Document>');
    expect(camt052.statusCode).toBe(422);
    expect(camt052.json().errors[0].code).toBe('UNSUPPORTED_MESSAGE_TYPE');
  });

  it('attacks: XXE and billion laughs → 400, deep nesting → 400, oversized → 413', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><a>&x;</a></Document>`;
    const r1 = await xmlPost('/parse', xxe);
    expect(r1.statusCode).toBe(400);
    expect(r1.json().errors[0].code).toBe('XML_DTD_FORBIDDEN');
    expect(r1.body).not.toMatch(/root:/);
    const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><Document>&c;</Document>`;
    const r2 = await xmlPost('/validate', laughs);
    expect(r2.statusCode).toBe(400);
    const deep = '<Document>' + '<a>'.repeat(5000) + '</a>'.repeat(5000) + '</Document>';
    const r3 = await xmlPost('/parse', deep);
    expect(r3.statusCode).toBe(400);
    expect(r3.json().errors[0].code).toBe('XML_TOO_DEEP');
    const big = '<Document>' + ' '.repeat(10 * 1024 * 1024) + '</Document>';
    const r4 = await xmlPost('/parse', big);
    expect(r4.statusCode).toBe(413);
  });
});
