import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateMessage, validateMessage, type ValidationIssue } from '../../iso20022/index';
import { RULES } from '../../iso20022/rule-catalog';
import { SAMPLES } from './fixtures/samples';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => readFileSync(path.join(dir, name), 'utf8');

/** Applies `edit` to a valid message and returns the business errors of the result. */
function businessErrors(xml: string, edit: (x: string) => string): ValidationIssue[] {
  expect(validateMessage(xml).valid).toBe(true);
  const edited = edit(xml);
  expect(edited).not.toBe(xml);
  const result = validateMessage(edited);
  expect(result.valid).toBe(false);
  return result.errors.filter((e) => e.kind === 'business');
}

/** Applies `edit` to a clean message: the result stays valid and carries only warnings, which are returned. */
function businessWarnings(xml: string, edit: (x: string) => string): ValidationIssue[] {
  expect(validateMessage(xml)).toMatchObject({ valid: true, errors: [], warnings: [] });
  const edited = edit(xml);
  expect(edited).not.toBe(xml);
  const result = validateMessage(edited);
  expect(result.errors).toEqual([]);
  expect(result.valid).toBe(true);
  expect(result.warnings.length).toBeGreaterThan(0);
  return result.warnings;
}

function expectRule(errors: ValidationIssue[], rule: string, pathEnd: string): ValidationIssue {
  const hit = errors.find((e) => e.rule === rule && e.path.endsWith(pathEnd));
  expect(hit, `${rule} at …${pathEnd} in ${JSON.stringify(errors)}`).toBeDefined();
  expect(hit!.line).toBeGreaterThan(0);
  expect(hit!.column).toBeGreaterThan(0);
  return hit!;
}

const pain001 = fixture('pain.001.001.03.xml');

describe('business rules', () => {
  it('group header NbOfTxs must equal the number of transactions', () => {
    const errors = businessErrors(pain001, (x) => x.replace('<NbOfTxs>3</NbOfTxs>', '<NbOfTxs>4</NbOfTxs>'));
    const e = expectRule(errors, 'number-of-transactions', '/CstmrCdtTrnInitn/GrpHdr/NbOfTxs'.replace('Trn', 'Trf'));
    expect(e.message).toMatch(/4 but the message contains 3/);
    expect(e.path).toBe('/Document/CstmrCdtTrfInitn/GrpHdr/NbOfTxs');
    const lines = pain001.split('\n');
    expect(lines[e.line - 1]).toContain('<NbOfTxs>3</NbOfTxs>');
    expect(e.column).toBe(lines[e.line - 1].indexOf('<NbOfTxs>') + 1);
  });

  it('payment-information NbOfTxs and CtrlSum are checked per PmtInf', () => {
    const errors = businessErrors(pain001, (x) => x.replace('<NbOfTxs>2</NbOfTxs>', '<NbOfTxs>1</NbOfTxs>').replace('<CtrlSum>250.00</CtrlSum>', '<CtrlSum>250.01</CtrlSum>'));
    expectRule(errors, 'number-of-transactions', '/PmtInf[1]/NbOfTxs');
    expectRule(errors, 'control-sum', '/PmtInf[2]/CtrlSum');
  });

  it('group CtrlSum must equal the sum of amounts (decimal-exact)', () => {
    const errors = businessErrors(pain001, (x) => x.replace('<CtrlSum>1760.45</CtrlSum>', '<CtrlSum>1760.4500001</CtrlSum>'));
    expect(expectRule(errors, 'control-sum', '/GrpHdr/CtrlSum').message).toMatch(/add up to 1760\.45/);
  });

  it('pacs.008 total interbank settlement amount must match the transactions', () => {
    const errors = businessErrors(fixture('pacs.008.001.02.xml'), (x) => x.replace('Ccy="EUR">300.10<', 'Ccy="EUR">300.00<'));
    expectRule(errors, 'control-sum', '/GrpHdr/TtlIntrBkSttlmAmt');
  });

  it('IBAN check digits (mod 97) and country length', () => {
    const errors = businessErrors(pain001, (x) => x.replace('NL91ABNA0417164300', 'NL92ABNA0417164300').replace('GB82WEST12345698765432', 'GB82WEST1234569876543'));
    const checkDigits = expectRule(errors, 'iban', '/PmtInf[1]/CdtTrfTxInf[1]/CdtrAcct/Id/IBAN');
    expect(checkDigits.message).toMatch(/check digits/);
    expect(checkDigits).toMatchObject({ code: 'iban', source: expect.stringMatching(/ISO 20022 data type rule "IBAN"/) });
    expect(expectRule(errors, 'iban', '/PmtInf[2]/CdtTrfTxInf/CdtrAcct/Id/IBAN').message).toMatch(/GB IBANs have 22/);
  });

  it('BIC format', () => {
    const result = validateMessage(pain001.replace('<BIC>ABNANL2A</BIC>', '<BIC>ABN1NL</BIC>'));
    expect(result.errors.some((e) => e.kind === 'xsd' && e.path.endsWith('/CdtrAgt/FinInstnId/BIC'))).toBe(true);
    expectRule(result.errors, 'bic', '/CdtrAgt/FinInstnId/BIC');
  });

  it('ISO 4217 currency codes and their decimals', () => {
    const errors = businessErrors(pain001, (x) =>
      x.replace('<InstdAmt Ccy="EUR">260.45</InstdAmt>', '<InstdAmt Ccy="EUX">260.45</InstdAmt>').replace('<Ccy>EUR</Ccy>', '<Ccy>XYZ</Ccy>'),
    );
    expectRule(errors, 'currency', '/PmtInf[1]/CdtTrfTxInf[2]/Amt/InstdAmt');
    expectRule(errors, 'currency', '/DbtrAcct/Ccy');
    const jpy = businessErrors(fixture('pain.001.001.09.xml'), (x) => x.replace('Ccy="JPY">1500000<', 'Ccy="JPY">1500000.5<'));
    expect(expectRule(jpy, 'currency-decimals', '/Amt/InstdAmt').message).toMatch(/JPY amounts have 0 decimal/);
    const eur = businessErrors(pain001, (x) => x.replace('>1250.00<', '>1250.001<').replace('>1760.45<', '>1760.451<').replace('>1510.45<', '>1510.451<'));
    expect(eur.map((e) => e.rule)).toEqual(['currency-decimals']);
  });

  it('requested execution date not before the creation date: a warning (platform rule), not a refusal', () => {
    const errors = businessWarnings(pain001, (x) => x.replace('<ReqdExctnDt>2024-03-06</ReqdExctnDt>', '<ReqdExctnDt>2024-03-04</ReqdExctnDt>'));
    const w = expectRule(errors, 'date-consistency', '/PmtInf[1]/ReqdExctnDt');
    expect(w.message).toMatch(/2024-03-04 is before .* 2024-03-05/);
    expect(w).toMatchObject({ code: 'date-consistency', source: expect.stringMatching(/^platform rule/) });
  });

  it('statement period: FrDtTm not after ToDtTm (warning)', () => {
    const errors = businessWarnings(fixture('camt.053.001.08.xml'), (x) => x.replace('<FrDtTm>2024-04-30T00:00:00Z</FrDtTm>', '<FrDtTm>2024-05-01T00:00:00Z</FrDtTm>'));
    expectRule(errors, 'date-consistency', '/Stmt/FrToDt');
  });

  it('interbank settlement date not before creation (pacs.008, warning)', () => {
    const errors = businessWarnings(fixture('pacs.008.001.02.xml'), (x) => x.replace('<IntrBkSttlmDt>2023-09-12</IntrBkSttlmDt>', '<IntrBkSttlmDt>2023-09-11</IntrBkSttlmDt>'));
    expectRule(errors, 'date-consistency', '/GrpHdr/IntrBkSttlmDt');
  });

  it('a creation time in UTC does not move the settlement day: a sender west of UTC may still be on the previous date', () => {
    const at = (created: string, settle: string) =>
      validateMessage(
        fixture('pacs.008.001.02.xml')
          .replace('<CreDtTm>2023-09-12T07:01:02</CreDtTm>', `<CreDtTm>${created}</CreDtTm>`)
          .replace('<IntrBkSttlmDt>2023-09-12</IntrBkSttlmDt>', `<IntrBkSttlmDt>${settle}</IntrBkSttlmDt>`),
      ).warnings.filter((e) => e.rule === 'date-consistency');
    // 00:28 UTC on the 12th is still the 11th in New York (and down to UTC-12).
    expect(at('2023-09-12T00:28:00Z', '2023-09-11')).toEqual([]);
    expect(at('2023-09-12T00:28:00.123+00:00', '2023-09-11')).toEqual([]);
    expect(at('2023-09-12T00:28:00Z', '2023-09-10')).toHaveLength(1);
    // A creation time with the sender's own offset is that sender's date.
    expect(at('2023-09-11T19:28:00-05:00', '2023-09-11')).toEqual([]);
    expect(at('2023-09-12T13:00:00Z', '2023-09-11')).toHaveLength(1);
  });

  it('mandatory references present', () => {
    const errors = businessErrors(pain001, (x) => x.replace('<MsgId>SEPA-20240305-0001</MsgId>', '<MsgId>   </MsgId>').replace('<PmtInfId>PMT-2024-03-05-B</PmtInfId>', '<PmtInfId> </PmtInfId>'));
    expectRule(errors, 'reference-required', '/GrpHdr/MsgId');
    expectRule(errors, 'reference-required', '/PmtInf[2]/PmtInfId');
  });

  it('references unique within the message (PmtInfId, InstrId, EndToEndId, UETR); NOTPROVIDED may repeat', () => {
    const errors = businessErrors(pain001, (x) =>
      x.replace('PMT-2024-03-05-B', 'PMT-2024-03-05-A').replace('<EndToEndId>SAL-2024-03-017</EndToEndId>', '<InstrId>INSTR-0001</InstrId><EndToEndId>RE-2024-0815</EndToEndId>'),
    );
    expectRule(errors, 'reference-unique', '/PmtInf[2]/PmtInfId');
    expectRule(errors, 'reference-unique', '/PmtInf[2]/CdtTrfTxInf/PmtId/InstrId');
    expect(expectRule(errors, 'reference-unique', '/PmtInf[2]/CdtTrfTxInf/PmtId/EndToEndId').message).toMatch(/first used at \/Document\/CstmrCdtTrfInitn\/PmtInf\[1\]/);
    const notProvided = validateMessage(pain001.replace('<EndToEndId>SAL-2024-03-017</EndToEndId>', '<EndToEndId>NOTPROVIDED</EndToEndId>'));
    expect(notProvided.valid).toBe(true);
    const pacs = generateMessage({ ...SAMPLES['pacs.008'] }).xml;
    const uetrs = [...pacs.matchAll(/<UETR>([^<]+)<\/UETR>/g)].map((m) => m[1]);
    const dupErrors = businessErrors(pacs, (x) => x.replace(uetrs[1], uetrs[0]));
    expectRule(dupErrors, 'reference-unique', '/CdtTrfTxInf[2]/PmtId/UETR');
  });

  it('statement totals (TxsSummry) that differ from the entries are a warning with its source', () => {
    const stmt = fixture('camt.053.001.02.xml');
    const totals = businessWarnings(stmt, (x) => x.replace('<NbOfNtries>2</NbOfNtries>', '<NbOfNtries>3</NbOfNtries>').replace('<Sum>250.00</Sum>', '<Sum>25.00</Sum>'));
    expect(expectRule(totals, 'statement-summary', '/TxsSummry/TtlNtries/NbOfNtries').source).toMatch(/TxsSummry/);
    expectRule(totals, 'statement-summary', '/TxsSummry/TtlCdtNtries/Sum');
  });

  it('balances that do not add up: a balance-reconciliation warning naming its source, not a refusal', () => {
    const balance = businessWarnings(fixture('camt.053.001.02.xml'), (x) => x.replace('<Amt Ccy="EUR">8989.55</Amt>', '<Amt Ccy="EUR">8989.56</Amt>'));
    const w = expectRule(balance, 'balance-reconciliation', '/Bal[2]/Amt');
    expect(w.message).toMatch(/EUR: closing booked balance \(CLBD\) 8989\.56 differs from opening balance \(PRCD\) 10000 plus booked entries \(8989\.55\)/);
    expect(w).toMatchObject({ code: 'balance-reconciliation', kind: 'business', source: expect.stringMatching(/^platform rule/) });
  });

  it('references that repeat in a statement (NtryRef, statement Id) are warnings', () => {
    const dup = businessWarnings(fixture('camt.053.001.08.xml'), (x) => x.replace('<Ntry>\n        <Amt Ccy="GBP">75.00', '<Ntry>\n        <NtryRef>A1</NtryRef>\n        <Amt Ccy="GBP">75.00'));
    expectRule(dup, 'statement-reference-unique', '/Ntry[2]/NtryRef');
  });

  it('a rejection carries a reason (pacs.002)', () => {
    const errors = businessErrors(fixture('pacs.002.001.03.xml'), (x) => x.replace(/<StsRsnInf>[\s\S]*<\/StsRsnInf>/, ''));
    expectRule(errors, 'rejection-reason', '/TxInfAndSts/TxSts');
  });

  it('camt.056: control data count and an original payment reference', () => {
    const errors = businessErrors(fixture('camt.056.001.08.xml'), (x) =>
      x.replace('<NbOfTxs>1</NbOfTxs>', '<NbOfTxs>2</NbOfTxs>').replace(/<OrgnlInstrId>.*<\/OrgnlUETR>/s, ''),
    );
    expectRule(errors, 'number-of-transactions', '/CtrlData/NbOfTxs');
    expectRule(errors, 'reference-required', '/Undrlyg/TxInf');
  });

  it('AppHdr MsgDefIdr must name the Document message', () => {
    const errors = businessErrors(fixture('pacs.008.001.08.envelope.xml'), (x) => x.replace('<head:MsgDefIdr>pacs.008.001.08<', '<head:MsgDefIdr>pacs.009.001.08<'));
    expectRule(errors, 'header-consistency', '/Envelope/AppHdr/MsgDefIdr');
  });
});

describe('statements in the shape real banks send', () => {
  const page = fixture('camt.053.001.04.page2.xml');
  /** The balance-reconciliation warnings of a statement that must stay valid. */
  const balanceWarnings = (xml: string) => {
    const v = validateMessage(xml);
    expect(v.errors).toEqual([]);
    expect(v.valid).toBe(true);
    return v.warnings.filter((w) => w.code === 'balance-reconciliation');
  };

  it('the last page of a paginated statement (ITBD carried over, a pending entry, a reversal) validates with warnings, not errors', () => {
    const v = validateMessage(page);
    expect(v.errors).toEqual([]);
    expect(v.valid).toBe(true);
    // The page's booked balance runs from its ITBD: 1200.00 + 400.00 - 300.00 + 50.00 (the reversal) = CLBD 1350.00,
    // with the pending 999.95 left out. The repeated OPBD of the whole statement is not the page's opening.
    expect(v.warnings.filter((w) => w.code === 'balance-reconciliation')).toEqual([]);
    // Its TxsSummry counts both pages: each differing total is a warning, located and sourced.
    expect(v.warnings.map((w) => [w.code, w.path.replace(/^.*\/TxsSummry\//, '')])).toEqual([
      ['statement-summary', 'TtlNtries/NbOfNtries'],
      ['statement-summary', 'TtlNtries/Sum'],
      ['statement-summary', 'TtlCdtNtries/NbOfNtries'],
      ['statement-summary', 'TtlCdtNtries/Sum'],
      ['statement-summary', 'TtlDbtNtries/NbOfNtries'],
      ['statement-summary', 'TtlDbtNtries/Sum'],
    ]);
    for (const w of v.warnings) {
      expect(w).toMatchObject({ kind: 'business', rule: 'statement-summary', source: expect.stringContaining('TxsSummry') });
      expect(w.line).toBeGreaterThan(0);
    }
    expect(v.warnings[0].message).toMatch(/NbOfNtries is 7 but the statement contains 4 entries \(page 2 of a paginated statement/);
  });

  it('closing balance: only BOOK entries count, the sign is CdtDbtInd, each currency on its own, a page closes with its ITBD', () => {
    // A pending entry booked after all no longer fits the balances.
    const booked = balanceWarnings(page.replace('<Sts>PDNG</Sts>', '<Sts>BOOK</Sts>'));
    expect(booked.map((w) => w.message)).toEqual([
      expect.stringMatching(/^CHF: closing booked balance \(CLBD\) 1350 differs from opening balance \(ITBD\) 1200 plus booked entries \(350\.05\); page 2 of a paginated statement/),
    ]);
    expect(booked[0].path).toBe('/Document/BkToCstmrStmt/Stmt/Bal[3]/Amt');
    // A reversal signed as the entry it reverses: ISO reads CdtDbtInd as the reversal's own direction, so it warns and says why.
    const asOriginal = balanceWarnings(page.replace('<CdtDbtInd>CRDT</CdtDbtInd>\n        <RvslInd>', '<CdtDbtInd>DBIT</CdtDbtInd>\n        <RvslInd>'));
    expect(asOriginal).toHaveLength(1);
    expect(asOriginal[0].message).toMatch(/\(1250\).*would add up if the 1 reversal entry \(RvslInd\) were read with the opposite sign/);
    // Page 1 of 2 closes with the interim balance it hands to page 2 (its CLBD, if repeated, is the statement's).
    const first = page.replace('<PgNb>2</PgNb>\n        <LastPgInd>true</LastPgInd>', '<PgNb>1</PgNb>\n        <LastPgInd>false</LastPgInd>');
    expect(balanceWarnings(first.replace('<Amt Ccy="CHF">1200.00</Amt>', '<Amt Ccy="CHF">1150.00</Amt>'))).toEqual([]);
    expect(balanceWarnings(first)[0].message).toMatch(/CHF: closing booked balance \(ITBD\) 1200 differs from opening balance \(OPBD\) 1000 plus booked entries \(1150\); page 1/);
    // Balances in a second currency reconcile with that currency's entries only.
    const eurBalances = (closing: string) =>
      `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">20.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2024-03-01</Dt></Dt></Bal>` +
      `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-03-31</Dt></Dt></Bal>\n      <TxsSummry>`;
    const eurEntry =
      `<Ntry><Amt Ccy="EUR">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd></Ntry>\n    </Stmt>`;
    const multi = (closing: string) => page.replace('\n      <TxsSummry>', eurBalances(closing)).replace('\n    </Stmt>', eurEntry);
    expect(balanceWarnings(multi('80.00'))).toEqual([]);
    const eurOff = balanceWarnings(multi('80.01'));
    expect(eurOff.map((w) => w.message)).toEqual([expect.stringMatching(/^EUR: closing booked balance \(CLBD\) 80\.01 differs from opening balance \(OPBD\) -20 plus booked entries \(80\)/)]);
    expect(eurOff[0].path).toBe('/Document/BkToCstmrStmt/Stmt/Bal[6]/Amt');
  });

  it('an XSD-invalid statement is still refused', () => {
    const v = validateMessage(page.replace('<Sts>PDNG</Sts>', '<Sts>PEND</Sts>'));
    expect(v.valid).toBe(false);
    expect(v.errors).toEqual([expect.objectContaining({ kind: 'xsd', code: 'schema', path: '/Document/BkToCstmrStmt/Stmt/Ntry[4]/Sts', source: 'ISO 20022 XSD camt.053.001.04' })]);
  });

  it('every rule has a level and a source, and docs/iso20022.md lists each with its level', () => {
    const docs = readFileSync(path.join(dir, '../../../docs/iso20022.md'), 'utf8');
    for (const [code, def] of Object.entries(RULES)) {
      expect(['error', 'warning']).toContain(def.level);
      expect(def.source.length).toBeGreaterThan(20);
      expect(docs, code).toContain(`| \`${code}\` | ${def.level} |`);
    }
  });
});

describe('schema errors', () => {
  it('report line, column and path of the offending element', () => {
    const xml = pain001.replace('<ChrgBr>SLEV</ChrgBr>', '<ChrgBr>XXXX</ChrgBr>').replace('<PmtMtd>TRF</PmtMtd>\n      <NbOfTxs>1', '<PmtMtd>TRF</PmtMtd>\n      <Unknown>1</Unknown>\n      <NbOfTxs>1');
    const result = validateMessage(xml);
    const xsd = result.errors.filter((e) => e.kind === 'xsd');
    const lines = xml.split('\n');
    const chrg = xsd.find((e) => e.path === '/Document/CstmrCdtTrfInitn/PmtInf[1]/ChrgBr');
    expect(chrg?.message).toMatch(/enumeration/);
    expect(lines[chrg!.line - 1]).toContain('<ChrgBr>XXXX</ChrgBr>');
    expect(chrg!.column).toBe(lines[chrg!.line - 1].indexOf('<ChrgBr>') + 1);
    const unknown = xsd.find((e) => e.path === '/Document/CstmrCdtTrfInitn/PmtInf[2]/Unknown');
    expect(unknown?.message).toMatch(/not expected/);
    expect(lines[unknown!.line - 1]).toContain('<Unknown>');
  });

  it('are reported for a message inside an envelope with the original line numbers', () => {
    const xml = fixture('pacs.008.001.08.envelope.xml').replace('<pacs:ChrgBr>SHAR</pacs:ChrgBr>', '<pacs:ChrgBr>NONE</pacs:ChrgBr>').replace('<head:BizSvc>', '<head:Bogus>x</head:Bogus><head:BizSvc>');
    const result = validateMessage(xml);
    const lines = xml.split('\n');
    const chrg = result.errors.find((e) => e.path === '/Envelope/Document/FIToFICstmrCdtTrf/CdtTrfTxInf/ChrgBr');
    expect(lines[chrg!.line - 1]).toContain('NONE');
    const bogus = result.errors.find((e) => e.path === '/Envelope/AppHdr/Bogus');
    expect(bogus?.kind).toBe('xsd');
    expect(lines[bogus!.line - 1]).toContain('<head:Bogus>');
  });
});
