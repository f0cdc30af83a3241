import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestUser, type TestApp } from '../helpers/app';
import { SAMPLES } from '../iso20022/fixtures/samples';
import { gqlOk, gqlRefused } from './helpers';

const fixture = (name: string) => readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../iso20022/fixtures', name), 'utf8');
const BASE = '/api/v1/iso20022';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const rest = (url: string, payload?: object, headers: Record<string, string> = t.headers) =>
  t.app.inject({ method: payload ? 'POST' : 'GET', url: `${BASE}${url}`, headers: { ...headers, accept: 'application/json' }, ...(payload ? { payload } : {}) });

const VALIDATE = `mutation ($xml: String!) { validateIso20022(xml: $xml) { valid messageType version namespace variant schemas checks { xsd business } notes errors { ...issue } warnings { ...issue } } }
  fragment issue on Iso20022Issue { line column path message kind code rule source }`;

describe('ISO 20022 over GraphQL', () => {
  it('supported types, parse and validate equal the REST answers for the same message', async () => {
    expect((await gqlOk(t, `{ iso20022SupportedTypes }`)).iso20022SupportedTypes).toEqual((await rest('/supported-types')).json().data);
    const xml = fixture('pacs.008.001.08.envelope.xml');
    expect((await gqlOk(t, `mutation ($xml: String!) { parseIso20022(xml: $xml) }`, { xml })).parseIso20022).toEqual((await rest('/parse', { xml })).json().data);
    const issues = (list: Array<Record<string, unknown>>) => list.map((e) => ({ ...e, rule: e.rule ?? null }));
    // A message with XSD errors and one with warnings only (a page of a paginated statement).
    for (const [message, valid] of [[xml.replace('<pacs:ChrgBr>SHAR</pacs:ChrgBr>', '<pacs:ChrgBr>NONE</pacs:ChrgBr>'), false], [fixture('camt.053.001.04.page2.xml'), true]] as const) {
      const v = (await rest('/validate', { xml: message })).json().data;
      const g = (await gqlOk(t, VALIDATE, { xml: message })).validateIso20022;
      expect(g).toEqual({
        valid: v.valid,
        messageType: v.message_type,
        version: v.version,
        namespace: v.namespace,
        variant: v.variant ?? null,
        schemas: v.schemas,
        checks: v.checks,
        notes: v.notes,
        errors: issues(v.errors),
        warnings: issues(v.warnings),
      });
      expect(g.valid).toBe(valid);
      expect(g[valid ? 'warnings' : 'errors'].length).toBeGreaterThan(0);
    }
    expect((await gqlOk(t, VALIDATE, { xml })).validateIso20022.valid).toBe(true);
  });

  it('generates a message whose XML validates, with the REST answer\'s details', async () => {
    const g = (await gqlOk(t, `mutation ($input: JSON!) { generateIso20022(input: $input) { xml messageType version details } }`, { input: SAMPLES['pacs.008'] })).generateIso20022;
    const r = (await rest('/generate', SAMPLES['pacs.008'])).json().data;
    expect(g.messageType).toBe(r.message_type);
    expect(g.version).toBe(r.version);
    expect(Object.keys(g.details).sort()).toEqual(Object.keys(r).filter((k) => k !== 'xml').sort());
    expect(g.xml).toMatch(/^<\?xml/);
    expect((await gqlOk(t, VALIDATE, { xml: g.xml })).validateIso20022.valid).toBe(true);
  });

  it('refusals carry the REST codes: malformed XML, a DOCTYPE, an unsupported type to generate, a read-only key', async () => {
    const broken = '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.008.001.08"><FIToFICstmrCdtTrf>';
    const restBroken = (await rest('/parse', { xml: broken })).json().errors[0];
    expect(restBroken.code).toBe('INVALID_XML');
    await gqlRefused(t, `mutation ($xml: String!) { parseIso20022(xml: $xml) }`, 'INVALID_XML', 400, { xml: broken });
    const dtd = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>${fixture('pacs.008.001.02.xml').replace(/^<\?xml[^>]*>/, '')}`;
    const restDtd = await rest('/validate', { xml: dtd });
    await gqlRefused(t, VALIDATE, restDtd.json().errors[0].code, restDtd.statusCode, { xml: dtd });
    const restUnsupported = await rest('/generate', { type: 'camt.052' });
    await gqlRefused(t, `mutation { generateIso20022(input: { type: "camt.052" }) { xml } }`, restUnsupported.json().errors[0].code, restUnsupported.statusCode);

    // REST takes these as POST (write): a read-only key is refused on both transports.
    const readOnly = await createTestUser({ permissions: ['read'] });
    expect((await rest('/validate', { xml: broken }, readOnly.headers)).statusCode).toBe(403);
    await gqlRefused(t, VALIDATE, 'INSUFFICIENT_PERMISSIONS', 403, { xml: broken }, readOnly.headers);
    await gqlOk(t, `{ iso20022SupportedTypes }`, undefined, readOnly.headers);
  });
});
