/**
 * The ISO 20022 auth.016.001.01 transaction report as ESMA's usage guideline 1.1.0 shapes it
 * (Document/FinInstrmRptgTxRpt, one Tx of New or Cxl), in the file layout the competent
 * authorities take: head.003 BizData whose Hdr holds the head.001 AppHdr (ESMA guideline 1.0.0)
 * and whose Pyld holds the Document. Elements follow the schemas' sequences; numbers are fitted
 * to the schemas' fractionDigits/totalDigits. Pure: no I/O, no clock (callers pass times).
 */
import { DecimalMoney as D } from '../../money/amount';
import { DomainError } from '../../platform/errors';

export const NS = {
  bizData: 'urn:iso:std:iso:20022:tech:xsd:head.003.001.01',
  appHdr: 'urn:iso:std:iso:20022:tech:xsd:head.001.001.01',
  auth016: 'urn:iso:std:iso:20022:tech:xsd:auth.016.001.01',
} as const;

export const MESSAGE_DEFINITION = 'auth.016.001.01';

/** A natural person as RTS 22 Art. 6 identifies them: a national identifier or CONCAT. */
export interface PersonParty {
  firstName: string;
  surname: string;
  birthDate: string;
  /** Country code + identifier, e.g. FR19850417JEAN#DUPON (CONCAT) or SE198504170123 (NIDN). */
  id: string;
  scheme: 'NIDN' | 'CCPT' | 'CONCAT';
}

/** A buyer or seller (RTS 22 fields 7-24 that apply): an LEI or a person, and the branch country for a client. */
export interface Party {
  lei?: string;
  person?: PersonParty;
  countryOfBranch?: string;
}

export interface NewTransaction {
  type: 'NEWT';
  transactionReferenceNumber: string;
  executingLei: string;
  investmentFirm: boolean;
  submittingLei: string;
  buyer: Party;
  seller: Party;
  tradedAt: Date;
  capacity: 'DEAL' | 'MTCH' | 'AOTC';
  quantity: string;
  price: string;
  priceCurrency: string;
  venue: string;
  isin: string;
  /** Field 57: who decided within the firm (trades on own account), by algorithm code. */
  investmentDecisionAlgo?: string;
  /** Field 59: the algorithm that executed it. */
  executionAlgo: string;
}

export interface CancelTransaction {
  type: 'CANC';
  transactionReferenceNumber: string;
  executingLei: string;
  submittingLei: string;
}

export interface HeaderInput {
  /** The submitting entity (LEI). */
  from: string;
  /** The competent authority's country. */
  to: string;
  businessMessageId: string;
  createdAt: Date;
}

type Attrs = { [name: string]: string };
interface Element extends Array<string | Attrs | Element | null | undefined | false> {
  0: string;
}
type Node = string | Element | null | undefined | false;

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const isAttrs = (x: unknown): x is Attrs => !!x && typeof x === 'object' && !Array.isArray(x);

/** ['Name', { Attr: 'v' }?, child, child] → <Name Attr="v">…</Name>; a string child is text; empty children drop. */
function render(node: Node, indent: string, out: string[]): void {
  if (!node || typeof node === 'string') return;
  const [name, ...rest] = node;
  const attrs = rest
    .filter(isAttrs)
    .flatMap((a) => Object.entries(a))
    .map(([k, v]) => ` ${k}="${escape(v)}"`)
    .join('');
  const kids = rest.filter((c): c is string | Element => !isAttrs(c) && c !== null && c !== undefined && c !== false);
  if (kids.length === 1 && typeof kids[0] === 'string') {
    out.push(`${indent}<${name}${attrs}>${escape(kids[0])}</${name}>`);
    return;
  }
  out.push(`${indent}<${name}${attrs}>`);
  for (const k of kids) if (typeof k !== 'string') render(k, `${indent}  `, out);
  out.push(`${indent}</${name}>`);
}

/**
 * A decimal string the schemas accept: at most `maxFraction` decimals and `maxTotal` digits in
 * all (half-even rounding of extra decimals), no exponent, no trailing zeros.
 */
export function xsdDecimal(value: string, maxFraction: number, maxTotal: number, pointer = '/transaction_id'): string {
  const v = new D(value);
  const intDigits = v.abs().trunc().isZero() ? 0 : v.abs().trunc().toFixed().length;
  if (intDigits > maxTotal) throw new DomainError('VALUE_OUT_OF_RANGE', `${value} has more than ${maxTotal} integer digits`, pointer);
  return v.toDecimalPlaces(Math.min(maxFraction, maxTotal - intDigits), D.ROUND_HALF_EVEN).toFixed();
}

const ts = (d: Date) => d.toISOString();

function partyXml(tag: 'Buyr' | 'Sellr', p: Party): Node {
  const id: Node = p.lei
    ? ['LEI', p.lei]
    : [
        'Prsn',
        ['FrstNm', p.person!.firstName],
        ['Nm', p.person!.surname],
        ['BirthDt', p.person!.birthDate],
        ['Othr', ['Id', p.person!.id], ['SchmeNm', p.person!.scheme === 'CONCAT' ? ['Prtry', 'CONCAT'] : ['Cd', p.person!.scheme]]],
      ];
  return [tag, ['AcctOwnr', ['Id', id], p.countryOfBranch ? ['CtryOfBrnch', p.countryOfBranch] : null]];
}

function newXml(t: NewTransaction): Node {
  return [
    'New',
    ['TxId', t.transactionReferenceNumber],
    ['ExctgPty', t.executingLei],
    ['InvstmtPtyInd', String(t.investmentFirm)],
    ['SubmitgPty', t.submittingLei],
    partyXml('Buyr', t.buyer),
    partyXml('Sellr', t.seller),
    ['OrdrTrnsmssn', ['TrnsmssnInd', 'false']],
    [
      'Tx',
      ['TradDt', ts(t.tradedAt)],
      ['TradgCpcty', t.capacity],
      ['Qty', ['Unit', xsdDecimal(t.quantity, 17, 18)]],
      ['Pric', ['Pric', ['MntryVal', ['Amt', { Ccy: t.priceCurrency }, xsdDecimal(t.price, 13, 18)]]]],
      ['TradVn', t.venue],
    ],
    ['FinInstrm', ['Id', t.isin]],
    t.investmentDecisionAlgo ? ['InvstmtDcsnPrsn', ['Algo', t.investmentDecisionAlgo]] : null,
    ['ExctgPrsn', ['Algo', t.executionAlgo]],
    ['AddtlAttrbts', ['SctiesFincgTxInd', 'false']],
  ];
}

function cancelXml(t: CancelTransaction): Node {
  return ['Cxl', ['TxId', t.transactionReferenceNumber], ['ExctgPty', t.executingLei], ['SubmitgPty', t.submittingLei]];
}

/** The report file: BizData(head.003) → Hdr/AppHdr(head.001) + Pyld/Document(auth.016). */
export function buildReportXml(hdr: HeaderInput, tx: NewTransaction | CancelTransaction): string {
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', `<BizData xmlns="${NS.bizData}">`, '  <Hdr>'];
  const orgId = (id: string, scheme?: string): Node => ['OrgId', ['Id', ['OrgId', ['Othr', ['Id', id], scheme ? ['SchmeNm', ['Prtry', scheme]] : null]]]];
  render(
    ['AppHdr', { xmlns: NS.appHdr }, ['Fr', orgId(hdr.from, 'LEI')], ['To', orgId(hdr.to)], ['BizMsgIdr', hdr.businessMessageId], ['MsgDefIdr', MESSAGE_DEFINITION], ['CreDt', ts(hdr.createdAt)]],
    '    ',
    lines,
  );
  lines.push('  </Hdr>', '  <Pyld>');
  render(['Document', { xmlns: NS.auth016 }, ['FinInstrmRptgTxRpt', ['Tx', tx.type === 'NEWT' ? newXml(tx) : cancelXml(tx)]]], '    ', lines);
  lines.push('  </Pyld>', '</BizData>');
  return `${lines.join('\n')}\n`;
}

/** Titles and surname prefixes RTS 22 Art. 6(4)/Annex II says to drop before taking the five letters. */
const PREFIXES = [
  'ATT', 'COUNT', 'COUNTESS', 'DAME', 'DR', 'LADY', 'LORD', 'MADAME', 'MADEMOISELLE', 'MASTER', 'MISS', 'MISTER', 'MR', 'MRS', 'MS', 'PROF', 'PROFESSOR', 'SIR', 'SR', 'ST',
  'AM', 'AUF', 'AUS', 'D', 'DA', 'DE', 'DEL', 'DEM', 'DEN', 'DER', 'DI', 'DO', 'DOS', 'DU', 'IM', 'LA', 'LE', 'MAC', 'MC', 'MHAC', 'MHIC', 'MIC', 'NI', 'O', 'UA', 'UI', 'VAN', 'VOM', 'VON',
];

/** Upper-case Latin letters only: accents removed, apostrophes, hyphens, commas and spaces dropped. */
function letters(word: string): string {
  return word.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ß/g, 'SS').replace(/[ÆæǼǽ]/g, 'AE').replace(/[Øø]/g, 'O').replace(/[Œœ]/g, 'OE').toUpperCase().replace(/[^A-Z]/g, '');
}

/** The first five letters of a name after its prefixes, padded with '#'. */
function five(name: string, onlyFirstWord: boolean): string {
  const words = name.trim().split(/[\s]+/).filter(Boolean);
  let i = 0;
  while (i < words.length - 1 && PREFIXES.includes(letters(words[i]))) i++;
  const rest = onlyFirstWord ? words.slice(i, i + 1) : words.slice(i);
  return letters(rest.join('')).slice(0, 5).padEnd(5, '#');
}

/**
 * CONCAT (RTS 22 Art. 6(4)): nationality + birth date (YYYYMMDD) + the first five letters of the
 * first first name + the first five letters of the surname, each after titles and prefixes and
 * padded with '#'. E.g. FR, 1985-04-17, "Jean-Marc", "de la Fontaine" → FR19850417JEANMFONTA.
 */
export function concatIdentifier(nationality: string, birthDate: string, firstName: string, surname: string): string {
  return `${nationality}${birthDate.replace(/-/g, '')}${five(firstName.replace(/-/g, ''), true)}${five(surname, false)}`;
}
