/**
 * Business rules of the bank-to-customer reports (camt.053 statements, camt.054 notifications):
 * mandatory references, the period, the transaction summary and the closing balance. The standard
 * makes none of the consistency checks a rule, and real statements legitimately differ from a naive
 * reading (pending entries, reversals, several currencies, one page of several), so their findings
 * are warnings (levels in rule-catalog.ts).
 */
import Decimal from 'decimal.js';
import { code } from './common';
import { checkCount, checkSum, dec, required, unique, type Emit, type TotalOptions } from './rule-helpers';
import { child, children, text, type XEl } from './xml';

interface Page {
  number: string;
  first: boolean;
  last: boolean;
}

const isTrue = (v: string | undefined) => v === 'true' || v === '1';

/** The page a report is when it is one of several (its own pagination, else the message's); undefined for a whole report. */
function pageOf(report: XEl, groupHeader: XEl | undefined, paginationName: string): Page | undefined {
  const p = child(report, paginationName) ?? child(groupHeader, 'MsgPgntn');
  const number = text(p, 'PgNb');
  if (!number) return undefined;
  const first = Number(number) === 1;
  const last = isTrue(text(p, 'LastPgInd'));
  return first && last ? undefined : { number, first, last };
}

function signed(amount: XEl | undefined, cd: string | undefined): Decimal | null {
  const v = dec(amount?.text);
  return v ? (cd === 'DBIT' ? v.negated() : v) : null;
}

function summary(report: XEl, entries: XEl[], kind: string, page: Page | undefined, emit: Emit): void {
  const s = child(report, 'TxsSummry');
  if (!s) return;
  const amountsOf = (cd?: string) => entries.filter((e) => !cd || text(e, 'CdtDbtInd') === cd).map((e) => child(e, 'Amt'));
  const opts: TotalOptions = {
    rule: 'statement-summary',
    container: kind,
    note: page ? ` (page ${page.number} of a paginated ${kind}: the summary may cover every page)` : '',
  };
  const all = child(s, 'TtlNtries');
  checkCount(all, 'NbOfNtries', entries.length, 'entries', emit, opts);
  checkSum(all, 'Sum', amountsOf(), 'entry amounts', emit, opts);
  for (const [name, cd, what] of [['TtlCdtNtries', 'CRDT', 'credit'], ['TtlDbtNtries', 'DBIT', 'debit']] as const) {
    checkCount(child(s, name), 'NbOfNtries', amountsOf(cd).length, `${what} entries`, emit, opts);
    checkSum(child(s, name), 'Sum', amountsOf(cd), `${what} entry amounts`, emit, opts);
  }
}

interface Balance {
  type: string;
  value: Decimal;
  amt: XEl;
}

/**
 * Per currency: opening booked balance + BOOK entries = closing booked balance. The opening is OPBD
 * (else PRCD, the previous closing), or on a later page of a paginated statement the first ITBD (the
 * interim balance the previous page closed with); the closing is CLBD, or on an earlier page the last
 * ITBD. Elsewhere ITBD is an intraday balance and not used. Entries that are not booked (PDNG, INFO,
 * FUTR) do not move the booked balance. The sign is the entry's CdtDbtInd, also for a reversal: per
 * the ReversalIndicator usage note, CRDT with RvslInd means a debit was reversed (the reversal is a
 * credit). A mismatch is a warning, with a hint when another reading would add up.
 */
function reconcileBalances(stmt: XEl, entries: XEl[], kind: string, page: Page | undefined, emit: Emit): void {
  const byCurrency = new Map<string, Balance[]>();
  for (const b of children(stmt, 'Bal')) {
    const amt = child(b, 'Amt');
    const value = signed(amt, text(b, 'CdtDbtInd'));
    const type = code(child(b, 'Tp', 'CdOrPrtry'));
    const ccy = amt?.attrs.Ccy;
    if (!amt || !value || !type || !ccy) continue;
    byCurrency.set(ccy, [...(byCurrency.get(ccy) ?? []), { type, value, amt }]);
  }
  for (const [ccy, bals] of byCurrency) {
    const of = (type: string) => bals.filter((b) => b.type === type);
    const interim = of('ITBD');
    const opening = (page && !page.first ? interim[0] : undefined) ?? of('OPBD')[0] ?? of('PRCD')[0];
    const closing = (page && !page.last ? interim.at(-1) : undefined) ?? of('CLBD').at(-1);
    if (!opening || !closing || opening === closing) continue;
    let booked = opening.value;
    let reversed = new Decimal(0);
    let reversals = 0;
    let notBooked = new Decimal(0);
    let notBookedCount = 0;
    for (const e of entries) {
      const amt = child(e, 'Amt');
      if (amt?.attrs.Ccy !== ccy) continue;
      const v = signed(amt, text(e, 'CdtDbtInd'));
      if (!v) return; // an unreadable amount is reported by the schema check
      if (code(child(e, 'Sts')) !== 'BOOK') {
        notBooked = notBooked.plus(v);
        notBookedCount++;
        continue;
      }
      booked = booked.plus(v);
      if (isTrue(text(e, 'RvslInd'))) {
        reversed = reversed.plus(v);
        reversals++;
      }
    }
    if (booked.equals(closing.value)) continue;
    const hints: string[] = [];
    if (reversals && booked.minus(reversed.times(2)).equals(closing.value)) {
      hints.push(
        `it would add up if the ${reversals} reversal ${reversals === 1 ? 'entry' : 'entries'} (RvslInd) were read with the opposite sign; ` +
          `ISO 20022 reads a reversal's CdtDbtInd as the direction of the reversal itself`,
      );
    }
    if (notBookedCount && booked.plus(notBooked).equals(closing.value)) {
      hints.push(`it would add up if the ${notBookedCount} ${notBookedCount === 1 ? 'entry' : 'entries'} not booked (Sts other than BOOK) were counted`);
    }
    if (page) hints.push(`page ${page.number} of a paginated ${kind}: its balances may cover entries on other pages`);
    emit(
      'balance-reconciliation',
      closing.amt,
      `${ccy}: closing booked balance (${closing.type}) ${closing.value.toFixed()} differs from opening balance (${opening.type}) ` +
        `${opening.value.toFixed()} plus booked entries (${booked.toFixed()})${hints.map((h) => `; ${h}`).join('')}`,
    );
  }
}

/** Rules of camt.053 (reportName Stmt) and camt.054 (Ntfctn) on the message root. */
export function reportRules(root: XEl, reportName: 'Stmt' | 'Ntfctn', emit: Emit): void {
  const gh = child(root, 'GrpHdr');
  required(gh, 'MsgId', emit);
  const kind = reportName === 'Stmt' ? 'statement' : 'notification';
  const reports = children(root, reportName);
  unique(reports.map((r) => child(r, 'Id')), `${reportName}/Id`, emit, [], 'statement-reference-unique');
  for (const r of reports) {
    required(r, 'Id', emit);
    const from = text(r, 'FrToDt', 'FrDtTm');
    const to = text(r, 'FrToDt', 'ToDtTm');
    if (from && to && Date.parse(from) > Date.parse(to)) {
      emit('date-consistency', child(r, 'FrToDt')!, `FrDtTm ${from} is after ToDtTm ${to}`);
    }
    const page = pageOf(r, gh, `${reportName}Pgntn`);
    const entries = children(r, 'Ntry');
    unique(entries.map((e) => child(e, 'NtryRef')), 'NtryRef', emit, [], 'statement-reference-unique');
    summary(r, entries, kind, page, emit);
    reconcileBalances(r, entries, kind, page, emit);
  }
}
