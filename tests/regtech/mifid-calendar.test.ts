import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../domain/platform/config';
import { buildReportXml, concatIdentifier, xsdDecimal, type NewTransaction } from '../../domain/regtech/mifid/auth016';
import { easterSunday, isTarget2Holiday, isWorkingDay, nextWorkingDay, reportingDeadline } from '../../domain/regtech/mifid/calendar';
import { isValidCountryCode, isValidIsin, isValidLei } from '../../domain/regtech/mifid/identifiers';
import { requireJurisdiction } from '../../domain/regtech/mifid/jurisdictions';
import { clientParty, transactionReference } from '../../domain/regtech/mifid/report';
import { mifidSettings } from '../../domain/regtech/mifid/settings';
import { validateReportXml } from '../../domain/regtech/mifid/xsd';

const XSD_DIR = loadConfig().mifidXsdDir;
const LEI = 'SANDBOXMIFIDFIRM0033';
const utc = (s: string) => new Date(s);

describe('T+1 working-day calendar (TARGET2 closing days)', () => {
  it('Easter Sunday by the Gregorian computus', () => {
    expect(easterSunday(2024).toISOString().slice(0, 10)).toBe('2024-03-31');
    expect(easterSunday(2025).toISOString().slice(0, 10)).toBe('2025-04-20');
    expect(easterSunday(2026).toISOString().slice(0, 10)).toBe('2026-04-05');
    expect(easterSunday(2027).toISOString().slice(0, 10)).toBe('2027-03-28');
    expect(easterSunday(2038).toISOString().slice(0, 10)).toBe('2038-04-25');
  });

  it('closing days: 1 Jan, Good Friday, Easter Monday, 1 May, 25-26 Dec; weekends are not working days', () => {
    for (const d of ['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25', '2026-12-26']) expect(isTarget2Holiday(utc(`${d}T12:00:00Z`)), d).toBe(true);
    for (const d of ['2026-04-02', '2026-04-07', '2026-12-24', '2026-12-31', '2026-04-05']) expect(isTarget2Holiday(utc(`${d}T12:00:00Z`)), d).toBe(false);
    expect(isWorkingDay(utc('2026-11-28T10:00:00Z'))).toBe(false); // Saturday
    expect(isWorkingDay(utc('2026-11-29T10:00:00Z'))).toBe(false); // Sunday
    expect(isWorkingDay(utc('2026-11-27T23:59:59Z'))).toBe(true); // Friday
  });

  it('a trade on a weekday is due at the end of the next day', () => {
    expect(reportingDeadline(utc('2026-11-25T10:15:00Z')).toISOString()).toBe('2026-11-26T23:59:59.999Z');
    // Late in the day (UTC) still counts for that day.
    expect(reportingDeadline(utc('2026-11-25T23:59:59.999Z')).toISOString()).toBe('2026-11-26T23:59:59.999Z');
  });

  it('Friday → Monday; Saturday and Sunday → Monday', () => {
    expect(reportingDeadline(utc('2026-11-27T16:00:00Z')).toISOString()).toBe('2026-11-30T23:59:59.999Z');
    expect(reportingDeadline(utc('2026-11-28T09:00:00Z')).toISOString()).toBe('2026-11-30T23:59:59.999Z');
    expect(reportingDeadline(utc('2026-11-29T09:00:00Z')).toISOString()).toBe('2026-11-30T23:59:59.999Z');
  });

  it('before Easter: Thursday → Tuesday (Good Friday and Easter Monday closed), Good Friday itself → Tuesday', () => {
    expect(reportingDeadline(utc('2026-04-02T12:00:00Z')).toISOString()).toBe('2026-04-07T23:59:59.999Z');
    expect(reportingDeadline(utc('2026-04-03T12:00:00Z')).toISOString()).toBe('2026-04-07T23:59:59.999Z');
    expect(reportingDeadline(utc('2025-04-17T12:00:00Z')).toISOString()).toBe('2025-04-22T23:59:59.999Z');
  });

  it('around Christmas and New Year', () => {
    // 2026: 24 Dec is a Thursday; 25 (Fri) and 26 (Sat) closed, then Sunday: Monday 28.
    expect(reportingDeadline(utc('2026-12-24T12:00:00Z')).toISOString()).toBe('2026-12-28T23:59:59.999Z');
    // 2025: 24 Dec is a Wednesday; 25 and 26 (Thu, Fri) closed: Monday 29.
    expect(reportingDeadline(utc('2025-12-24T12:00:00Z')).toISOString()).toBe('2025-12-29T23:59:59.999Z');
    // 31 Dec 2026 (Thursday): 1 Jan 2027 (Friday) closed, then the weekend → Monday 4 Jan.
    expect(reportingDeadline(utc('2026-12-31T12:00:00Z')).toISOString()).toBe('2027-01-04T23:59:59.999Z');
    expect(nextWorkingDay(utc('2027-01-01T08:00:00Z')).toISOString()).toBe('2027-01-04T00:00:00.000Z');
    // 30 April 2026 (Thursday): 1 May closed → Monday 4 May.
    expect(reportingDeadline(utc('2026-04-30T12:00:00Z')).toISOString()).toBe('2026-05-04T23:59:59.999Z');
  });
});

describe('identifiers and inputs of a report', () => {
  it('the sandbox LEI and ISIN defaults are checksum-valid; settings are checked (mod 97)', () => {
    expect(isValidLei(LEI)).toBe(true);
    expect(isValidIsin('ZZGCU0000018')).toBe(true);
    expect(mifidSettings({ mifidXsdDir: XSD_DIR, mifidFirmLei: LEI, mifidSubmittingLei: LEI, mifidInvestmentFirm: true }).firmLei).toBe(LEI);
    expect(() => mifidSettings({ mifidXsdDir: XSD_DIR, mifidFirmLei: 'SANDBOXMIFIDFIRM0034', mifidSubmittingLei: LEI, mifidInvestmentFirm: true })).toThrow(
      expect.objectContaining({ code: 'MIFID_SETTINGS_INVALID', message: expect.stringContaining('MIFID_FIRM_LEI') }),
    );
    expect(() => mifidSettings({ mifidXsdDir: XSD_DIR, mifidFirmLei: LEI, mifidSubmittingLei: 'NOT-A-LEI', mifidInvestmentFirm: true })).toThrow(
      expect.objectContaining({ code: 'MIFID_SETTINGS_INVALID', message: expect.stringContaining('MIFID_SUBMITTING_LEI') }),
    );
  });

  it('country codes are ISO 3166-1 assigned codes; jurisdictions are EU/EEA member states', () => {
    expect(isValidCountryCode('DE')).toBe(true);
    expect(isValidCountryCode('EU')).toBe(false);
    expect(isValidCountryCode('ZZ')).toBe(false);
    expect(requireJurisdiction('lu')).toEqual({ country: 'LU', name: 'Commission de Surveillance du Secteur Financier (CSSF)' });
    expect(requireJurisdiction('NO').country).toBe('NO');
    for (const bad of ['US', 'GB', 'CH', 'XX']) expect(() => requireJurisdiction(bad)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_JURISDICTION', pointer: '/jurisdiction' }));
  });

  it('CONCAT: nationality, birth date, five letters of the first first name and of the surname without prefixes, # padded', () => {
    expect(concatIdentifier('FR', '1985-04-17', 'Jean-Marc', 'de la Fontaine')).toBe('FR19850417JEANMFONTA');
    expect(concatIdentifier('DE', '1970-01-02', 'Jürgen Michael', 'von Ödenburg')).toBe('DE19700102JURGEODENB');
    expect(concatIdentifier('IE', '1990-12-31', 'Eve', "O'Neil")).toBe('IE19901231EVE##ONEIL');
    expect(concatIdentifier('GB', '1965-06-30', 'Dr John', 'Ng')).toBe('GB19650630JOHN#NG###');
  });

  it('the client: LEI (checked), or a natural person (national id or CONCAT); coded refusals name the field', () => {
    expect(clientParty({ lei: 'sandboxmifidfirm0033' }, 'LU')).toEqual({ lei: LEI, countryOfBranch: 'LU' });
    expect(clientParty({ first_name: 'Anna', surname: 'Berg', birth_date: '1980-02-29', nationality: 'se', national_id: '198002291234' }, 'SE').person).toMatchObject({ id: 'SE198002291234', scheme: 'NIDN' });
    expect(clientParty({ first_name: 'Anna', surname: 'Berg', birth_date: '1980-02-29', nationality: 'FR' }, 'FR').person).toMatchObject({ id: 'FR19800229ANNA#BERG#', scheme: 'CONCAT' });
    const refused: Array<[Parameters<typeof clientParty>[0], string, string]> = [
      [undefined, 'CLIENT_IDENTIFICATION_REQUIRED', '/client'],
      [{ lei: '506700GE1G29325QX364' }, 'INVALID_LEI', '/client/lei'],
      [{ lei: LEI, surname: 'Berg' }, 'CLIENT_IDENTIFICATION_AMBIGUOUS', '/client'],
      [{ first_name: 'Anna', birth_date: '1980-01-01', nationality: 'FR' }, 'CLIENT_IDENTIFICATION_INCOMPLETE', '/client/surname'],
      [{ first_name: 'Anna', surname: 'Berg', birth_date: '1980-01-01', nationality: 'XY' }, 'INVALID_COUNTRY', '/client/nationality'],
      [{ first_name: 'Anna', surname: 'Berg', birth_date: '1980-02-30', nationality: 'FR' }, 'INVALID_BIRTH_DATE', '/client/birth_date'],
      [{ first_name: 'Анна', surname: 'Berg', birth_date: '1980-01-01', nationality: 'FR' }, 'INVALID_CLIENT_NAME', '/client/first_name'],
      [{ first_name: 'Anna', surname: 'Berg', birth_date: '1980-01-01', nationality: 'FR', national_id: 'ab#1' }, 'INVALID_NATIONAL_ID', '/client/national_id'],
    ];
    for (const [input, code, pointer] of refused) expect(() => clientParty(input, 'FR'), code).toThrow(expect.objectContaining({ code, pointer }));
  });

  it('transaction reference numbers and XSD decimals', () => {
    expect(transactionReference('gbuy_0123abcd')).toBe('GBUY0123ABCD');
    expect(xsdDecimal('1.10000000000000000000', 13, 18)).toBe('1.1');
    expect(xsdDecimal('123456.123456789012345', 13, 18)).toBe('123456.123456789012'); // 18 digits in all
    expect(xsdDecimal('0.00000000000000005', 13, 18)).toBe('0');
    expect(() => xsdDecimal('1234567890123456789', 13, 18)).toThrow(expect.objectContaining({ code: 'VALUE_OUT_OF_RANGE' }));
  });
});

const NEWT: NewTransaction = {
  type: 'NEWT',
  transactionReferenceNumber: 'GBUY0123456789ABCDEF',
  executingLei: LEI,
  investmentFirm: true,
  submittingLei: LEI,
  buyer: { person: { firstName: 'Jean-Marc', surname: 'de la Fontaine', birthDate: '1985-04-17', id: 'FR19850417JEANMFONTA', scheme: 'CONCAT' }, countryOfBranch: 'LU' },
  seller: { lei: LEI },
  tradedAt: new Date('2026-11-25T10:15:00.123Z'),
  capacity: 'DEAL',
  quantity: '10.0000',
  price: '1.10000000000000000001',
  priceCurrency: 'USD',
  venue: 'XOFF',
  isin: 'ZZGCU0000018',
  investmentDecisionAlgo: 'GCUBUYWORKFLOW',
  executionAlgo: 'GCUBUYWORKFLOW',
};
const HDR = { from: LEI, to: 'LU', businessMessageId: `MFR${'0'.repeat(32)}`, createdAt: new Date('2026-11-25T11:00:00Z') };

describe('auth.016 report file against ESMA’s schemas (MIFID_XSD_DIR)', () => {
  it('a NEWT and a CANC validate; breaking an element in the Document or the AppHdr fails at that line', () => {
    const xml = buildReportXml(HDR, NEWT);
    expect(validateReportXml(xml, XSD_DIR)).toEqual({ validated: true, reason: null, issues: [] });
    expect(xml).toContain('<Amt Ccy="USD">1.1</Amt>');
    const cancel = buildReportXml(HDR, { type: 'CANC', transactionReferenceNumber: NEWT.transactionReferenceNumber, executingLei: LEI, submittingLei: LEI });
    expect(validateReportXml(cancel, XSD_DIR).validated).toBe(true);

    const line = (x: string, s: string) => x.split('\n').findIndex((l) => l.includes(s)) + 1;
    const badVenue = xml.replace('<TradVn>XOFF</TradVn>', '<TradVn>xoff</TradVn>');
    const v = validateReportXml(badVenue, XSD_DIR);
    expect(v.validated).toBe(false);
    expect(v.issues).toEqual([expect.objectContaining({ code: 'XSD_INVALID', part: 'Document', line: line(badVenue, '<TradVn>'), message: expect.stringContaining('TradVn') })]);
    expect(v.reason).toMatch(/^Failed schema validation: Document: /);

    const badIsin = validateReportXml(xml.replace('<Id>ZZGCU0000018</Id>', '<Id>ZZGCU000001</Id>'), XSD_DIR);
    expect(badIsin.issues[0].message).toContain('ZZGCU000001');
    const hdr = validateReportXml(xml.replace('<MsgDefIdr>', '<Foo>1</Foo><MsgDefIdr>'), XSD_DIR);
    expect(hdr.issues).toEqual([expect.objectContaining({ code: 'XSD_INVALID', part: 'AppHdr' })]);
    const order = validateReportXml(xml.replace(/<ExctgPty>[^<]*<\/ExctgPty>\s*<InvstmtPtyInd>true<\/InvstmtPtyInd>/, '<InvstmtPtyInd>true</InvstmtPtyInd><ExctgPty>X</ExctgPty>'), XSD_DIR);
    expect(order.validated).toBe(false);
  });

  it('the envelope is checked: wrong payload namespace, missing parts, malformed XML, DTDs', () => {
    const xml = buildReportXml(HDR, NEWT);
    const wrongNs = validateReportXml(xml.replace('xmlns="urn:iso:std:iso:20022:tech:xsd:auth.016.001.01"', 'xmlns="urn:iso:std:iso:20022:tech:xsd:auth.016.001.02"'), XSD_DIR);
    expect(wrongNs.issues[0]).toMatchObject({ code: 'ENVELOPE_INVALID', part: 'Document' });
    expect(validateReportXml(xml.replace(/<Hdr>[\s\S]*<\/Hdr>/, ''), XSD_DIR).issues[0].code).toBe('ENVELOPE_INVALID');
    expect(validateReportXml(xml.slice(0, 400), XSD_DIR).issues[0].code).toBe('XML_MALFORMED');
    expect(validateReportXml(`<!DOCTYPE x [<!ENTITY e "x">]>${xml.replace(/^<\?xml[^>]*>/, '')}`, XSD_DIR).issues[0].code).toBe('XML_MALFORMED');
  });

  it('without the schema files nothing is claimed: validated false with the reason', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-xsd-'));
    try {
      const v = validateReportXml(buildReportXml(HDR, NEWT), empty);
      expect(v.validated).toBe(false);
      expect(v.reason).toContain('lacks head.003.001.01.xsd, head.001.001.01_ESMAUG_1.0.0.xsd, auth.016.001.01_ESMAUG_Reporting_1.1.0.xsd');
      expect(v.issues).toEqual([expect.objectContaining({ code: 'XSD_SCHEMA_UNAVAILABLE' })]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
