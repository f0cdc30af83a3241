/**
 * Business rules the XSDs cannot express: counts and control sums, IBAN check
 * digits, BIC format, ISO 4217 codes and decimals, date consistency, and
 * presence/uniqueness of references (statement rules: statement-rules.ts).
 * Each finding points at an element and carries its level (error or warning)
 * and source from rule-catalog.ts.
 */
import type { MessageType } from './catalog';
import { dateChoice } from './common';
import { isCurrency, minorUnits } from './currencies';
import { bicProblem, ibanProblem } from './iban';
import { SOURCES } from './rule-catalog';
import { checkCount, checkSum, collector, required, unique, type Emit, type RuleIssue } from './rule-helpers';
import { reportRules } from './statement-rules';
import { child, children, text, walk, type XEl } from './xml';

export type { RuleIssue };

const BIC_ELEMENTS = new Set(['BIC', 'BICFI', 'AnyBIC', 'BICOrBEI']);

/** IBAN, BIC and currency checks anywhere in the tree. */
function checkIdentifiers(root: XEl, emit: Emit): void {
  walk(root, (e) => {
    if (e.name === 'IBAN' && e.text) {
      const p = ibanProblem(e.text);
      if (p) emit('iban', e, p);
    } else if (BIC_ELEMENTS.has(e.name) && e.text) {
      const p = bicProblem(e.text);
      if (p) emit('bic', e, p);
    } else if (e.name === 'Ccy' && e.text && !isCurrency(e.text)) {
      emit('currency', e, `"${e.text}" is not an ISO 4217 currency code`);
    }
    const ccy = e.attrs.Ccy;
    if (ccy !== undefined) {
      if (!isCurrency(ccy)) emit('currency', e, `Ccy="${ccy}" is not an ISO 4217 currency code`);
      else {
        const units = minorUnits(ccy);
        const decimals = (e.text.split('.')[1] ?? '').length;
        if (typeof units === 'number' && decimals > units) {
          emit('currency-decimals', e, `${ccy} amounts have ${units} decimal place(s); ${e.text} has ${decimals}`);
        }
      }
    }
  });
}

function dateOnly(s: string | undefined): string | undefined {
  return s && /^\d{4}-\d{2}-\d{2}/.test(s) ? s.slice(0, 10) : undefined;
}

/**
 * The earliest business date a creation time can belong to. A time with the sender's own offset
 * (or none) is on the date it shows; a time in UTC (Z, +00:00) says nothing of the sender's zone,
 * and a sender as far west as UTC-12 may still be on the previous date (a payment created at
 * 00:28 UTC settles on the US business day before).
 */
function creationDate(reference: string | undefined): string | undefined {
  if (reference && /(Z|[+-]00:?00)$/.test(reference)) {
    const t = Date.parse(reference);
    if (!Number.isNaN(t)) return new Date(t - 12 * 3_600_000).toISOString().slice(0, 10);
  }
  return dateOnly(reference);
}

function notBefore(el: XEl | undefined, value: string | undefined, reference: string | undefined, label: string, emit: Emit): void {
  const d = dateOnly(value);
  const r = creationDate(reference);
  if (el && d && r && d < r) emit('date-consistency', el, `${label} ${d} is before the message creation date ${r}`);
}

function requireRejectReason(statusEl: XEl | undefined, reasonParent: XEl, emit: Emit): void {
  if (statusEl?.text === 'RJCT' && !children(reasonParent, 'StsRsnInf').some((r) => child(r, 'Rsn'))) {
    emit('rejection-reason', statusEl, 'A rejection (RJCT) must give a status reason (StsRsnInf/Rsn)');
  }
}

function pain001(root: XEl, emit: Emit): void {
  const gh = child(root, 'GrpHdr');
  required(gh, 'MsgId', emit);
  const pis = children(root, 'PmtInf');
  const txAmount = (tx: XEl) => child(tx, 'Amt', 'InstdAmt') ?? child(tx, 'Amt', 'EqvtAmt', 'Amt');
  const allTx = pis.flatMap((pi) => children(pi, 'CdtTrfTxInf'));
  checkCount(gh, 'NbOfTxs', allTx.length, 'transactions', emit);
  checkSum(gh, 'CtrlSum', allTx.map(txAmount), 'transaction amounts', emit);
  const created = text(gh, 'CreDtTm');
  for (const pi of pis) {
    required(pi, 'PmtInfId', emit);
    const txs = children(pi, 'CdtTrfTxInf');
    checkCount(pi, 'NbOfTxs', txs.length, 'transactions in this payment information', emit);
    checkSum(pi, 'CtrlSum', txs.map(txAmount), 'transaction amounts of this payment information', emit);
    const reqd = child(pi, 'ReqdExctnDt');
    notBefore(reqd, dateChoice(reqd), created, 'ReqdExctnDt', emit);
    for (const tx of txs) required(child(tx, 'PmtId'), 'EndToEndId', emit);
  }
  unique(pis.map((pi) => child(pi, 'PmtInfId')), 'PmtInfId', emit);
  unique(allTx.map((tx) => child(tx, 'PmtId', 'InstrId')), 'InstrId', emit);
  unique(allTx.map((tx) => child(tx, 'PmtId', 'EndToEndId')), 'EndToEndId', emit, ['NOTPROVIDED']);
  unique(allTx.map((tx) => child(tx, 'PmtId', 'UETR')), 'UETR', emit);
}

function pacs008(root: XEl, emit: Emit): void {
  const gh = child(root, 'GrpHdr');
  required(gh, 'MsgId', emit);
  const txs = children(root, 'CdtTrfTxInf');
  const amounts = txs.map((tx) => child(tx, 'IntrBkSttlmAmt'));
  checkCount(gh, 'NbOfTxs', txs.length, 'transactions', emit);
  checkSum(gh, 'CtrlSum', amounts, 'interbank settlement amounts', emit);
  checkSum(gh, 'TtlIntrBkSttlmAmt', amounts, 'interbank settlement amounts', emit, { source: SOURCES.pacs008TotalSum });
  const total = child(gh, 'TtlIntrBkSttlmAmt');
  if (total) {
    for (const a of amounts) {
      if (a && a.attrs.Ccy !== total.attrs.Ccy) {
        emit('currency', a, `Transaction currency ${a.attrs.Ccy} differs from TtlIntrBkSttlmAmt currency ${total.attrs.Ccy}`, {
          source: SOURCES.pacs008TotalCurrency,
        });
      }
    }
  }
  const created = text(gh, 'CreDtTm');
  const ghDate = child(gh, 'IntrBkSttlmDt');
  notBefore(ghDate, ghDate?.text, created, 'IntrBkSttlmDt', emit);
  for (const tx of txs) {
    const d = child(tx, 'IntrBkSttlmDt');
    notBefore(d, d?.text, created, 'IntrBkSttlmDt', emit);
    required(child(tx, 'PmtId'), 'EndToEndId', emit);
  }
  unique(txs.map((tx) => child(tx, 'PmtId', 'InstrId')), 'InstrId', emit);
  unique(txs.map((tx) => child(tx, 'PmtId', 'EndToEndId')), 'EndToEndId', emit, ['NOTPROVIDED']);
  unique(txs.map((tx) => child(tx, 'PmtId', 'TxId')), 'TxId', emit);
  unique(txs.map((tx) => child(tx, 'PmtId', 'UETR')), 'UETR', emit);
}

function pacs002(root: XEl, emit: Emit): void {
  required(child(root, 'GrpHdr'), 'MsgId', emit);
  for (const g of children(root, 'OrgnlGrpInfAndSts')) {
    required(g, 'OrgnlMsgId', emit);
    requireRejectReason(child(g, 'GrpSts'), g, emit);
  }
  const txs = children(root, 'TxInfAndSts');
  for (const tx of txs) requireRejectReason(child(tx, 'TxSts'), tx, emit);
  unique(txs.map((tx) => child(tx, 'StsId')), 'StsId', emit);
}

function pain002(root: XEl, emit: Emit): void {
  required(child(root, 'GrpHdr'), 'MsgId', emit);
  const g = child(root, 'OrgnlGrpInfAndSts');
  required(g, 'OrgnlMsgId', emit);
  if (g) requireRejectReason(child(g, 'GrpSts'), g, emit);
  const pis = children(root, 'OrgnlPmtInfAndSts');
  const txs = pis.flatMap((pi) => children(pi, 'TxInfAndSts'));
  for (const pi of pis) {
    required(pi, 'OrgnlPmtInfId', emit);
    requireRejectReason(child(pi, 'PmtInfSts'), pi, emit);
  }
  for (const tx of txs) requireRejectReason(child(tx, 'TxSts'), tx, emit);
  unique(pis.map((pi) => child(pi, 'OrgnlPmtInfId')), 'OrgnlPmtInfId', emit);
  unique(txs.map((tx) => child(tx, 'StsId')), 'StsId', emit);
}

function camt056(root: XEl, emit: Emit): void {
  required(child(root, 'Assgnmt'), 'Id', emit);
  const txs = children(root, 'Undrlyg').flatMap((u) => children(u, 'TxInf'));
  checkCount(child(root, 'CtrlData'), 'NbOfTxs', txs.length, 'transactions', emit);
  checkSum(child(root, 'CtrlData'), 'CtrlSum', txs.map((t) => child(t, 'OrgnlIntrBkSttlmAmt')), 'original settlement amounts', emit);
  unique(txs.map((t) => child(t, 'CxlId')), 'CxlId', emit);
  for (const t of txs) {
    if (!['OrgnlInstrId', 'OrgnlEndToEndId', 'OrgnlTxId', 'OrgnlUETR'].some((n) => text(t, n))) {
      emit('reference-required', t, 'A cancellation must identify the original payment (OrgnlEndToEndId, OrgnlTxId, OrgnlUETR or OrgnlInstrId)', {
        source: SOURCES.camt056Original,
      });
    }
  }
}

function admi002(root: XEl, emit: Emit): void {
  required(child(root, 'RltdRef'), 'Ref', emit);
}

/** Runs every rule for `type` on the message root (the child of Document), plus the AppHdr checks. */
export function businessRules(document: XEl, root: XEl | undefined, type: MessageType, version: string, appHdr?: XEl): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const emit = collector(issues);
  checkIdentifiers(document, emit);
  if (root) {
    switch (type) {
      case 'pain.001': pain001(root, emit); break;
      case 'pacs.008': pacs008(root, emit); break;
      case 'pacs.002': pacs002(root, emit); break;
      case 'pain.002': pain002(root, emit); break;
      case 'camt.053': reportRules(root, 'Stmt', emit); break;
      case 'camt.054': reportRules(root, 'Ntfctn', emit); break;
      case 'camt.056': camt056(root, emit); break;
      case 'admi.002': admi002(root, emit); break;
    }
  }
  if (appHdr) {
    checkIdentifiers(appHdr, emit);
    required(appHdr, 'BizMsgIdr', emit);
    const def = child(appHdr, 'MsgDefIdr');
    if (def && def.text && !def.text.startsWith(version)) {
      emit('header-consistency', def, `MsgDefIdr ${def.text} does not match the Document's message ${version}`);
    }
  }
  return issues;
}
