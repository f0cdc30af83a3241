import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generateMessage, validateMessage, type ValidationIssue } from '../../iso20022/index';
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
    expect(expectRule(errors, 'iban', '/PmtInf[1]/CdtTrfTxInf[1]/CdtrAcct/Id/IBAN').message).toMatch(/check digits/);
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

  it('requested execution date not before the creation date', () => {
    const errors = businessErrors(pain001, (x) => x.replace('<ReqdExctnDt>2024-03-06</ReqdExctnDt>', '<ReqdExctnDt>2024-03-04</ReqdExctnDt>'));
    expect(expectRule(errors, 'date-consistency', '/PmtInf[1]/ReqdExctnDt').message).toMatch(/2024-03-04 is before .* 2024-03-05/);
  });

  it('statement period: FrDtTm not after ToDtTm', () => {
    const errors = businessErrors(fixture('camt.053.001.08.xml'), (x) => x.replace('<FrDtTm>2024-04-30T00:00:00Z</FrDtTm>', '<FrDtTm>2024-05-01T00:00:00Z</FrDtTm>'));
    expectRule(errors, 'date-consistency', '/Stmt/FrToDt');
  });

  it('interbank settlement date not before creation (pacs.008)', () => {
    const errors = businessErrors(fixture('pacs.008.001.02.xml'), (x) => x.replace('<IntrBkSttlmDt>2023-09-12</IntrBkSttlmDt>', '<IntrBkSttlmDt>2023-09-11</IntrBkSttlmDt>'));
    expectRule(errors, 'date-consistency', '/GrpHdr/IntrBkSttlmDt');
  });

  it('a creation time in UTC does not move the settlement day: a sender west of UTC may still be on the previous date', () => {
    const at = (created: string, settle: string) =>
      validateMessage(
        fixture('pacs.008.001.02.xml')
          .replace('<CreDtTm>2023-09-12T07:01:02</CreDtTm>', `<CreDtTm>${created}</CreDtTm>`)
          .replace('<IntrBkSttlmDt>2023-09-12</IntrBkSttlmDt>', `<IntrBkSttlmDt>${settle}</IntrBkSttlmDt>`),
      ).errors.filter((e) => e.rule === 'date-consistency');
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

  it('statement totals and balance reconciliation (camt.053)', () => {
    const stmt = fixture('camt.053.001.02.xml');
    const totals = businessErrors(stmt, (x) => x.replace('<NbOfNtries>2</NbOfNtries>', '<NbOfNtries>3</NbOfNtries>').replace('<Sum>250.00</Sum>', '<Sum>25.00</Sum>'));
    expectRule(totals, 'number-of-transactions', '/TxsSummry/TtlNtries/NbOfNtries');
    expectRule(totals, 'control-sum', '/TxsSummry/TtlCdtNtries/Sum');
    const balance = businessErrors(stmt, (x) => x.replace('<Amt Ccy="EUR">8989.55</Amt>', '<Amt Ccy="EUR">8989.56</Amt>'));
    expect(expectRule(balance, 'balance-reconciliation', '/Bal[2]/Amt').message).toMatch(/8989\.56 differs .*8989\.55/);
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
