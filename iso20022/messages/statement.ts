/**
 * camt.053 (statement) and camt.054 (debit/credit notification): the same
 * account report structure under different element names; camt.054 carries
 * no balances.
 */
import Decimal from 'decimal.js';
import { amountXml, code, compact, currencyCode, dateChoice, invalid, list, newReference, nowDateTime, obj, str, type Account, type Agent, type Party, type PartyWithAccount, type Remittance } from '../common';
import { accountXml, agentXml, partyXml, remittanceXml } from '../builders';
import { readAccount, readAgent, readMoney, readParty, readPartyBlock, readRemittance } from '../readers';
import type { XObj } from '../build';
import { child, children, text, type XEl } from '../xml';
import type { BuildResult, Json, MessageHandler } from './types';
import { toBool } from './shared';

interface Names {
  root: string;
  report: string;
  pagination: string;
  info: string;
  listKey: 'statements' | 'notifications';
  balances: boolean;
}

const STATEMENT: Names = { root: 'BkToCstmrStmt', report: 'Stmt', pagination: 'StmtPgntn', info: 'AddtlStmtInf', listKey: 'statements', balances: true };
const NOTIFICATION: Names = {
  root: 'BkToCstmrDbtCdtNtfctn', report: 'Ntfctn', pagination: 'NtfctnPgntn', info: 'AddtlNtfctnInf', listKey: 'notifications', balances: false,
};

function pagination(el: XEl | undefined): Json | undefined {
  if (!el) return undefined;
  return compact({ page_number: text(el, 'PgNb'), last_page: toBool(text(el, 'LastPgInd')) });
}

function bankTxCode(el: XEl | undefined): Json | undefined {
  if (!el) return undefined;
  return compact({
    domain_code: text(el, 'Domn', 'Cd'),
    family_code: text(el, 'Domn', 'Fmly', 'Cd'),
    sub_family_code: text(el, 'Domn', 'Fmly', 'SubFmlyCd'),
    proprietary_code: text(el, 'Prtry', 'Cd'),
    proprietary_issuer: text(el, 'Prtry', 'Issr'),
  });
}

function parseDetail(d: XEl): Json {
  const refs = child(d, 'Refs');
  // Version 2 has no TxDtls/Amt; the amount sits in AmtDtls/TxAmt.
  const amt = readMoney(child(d, 'Amt')) ?? readMoney(child(d, 'AmtDtls', 'TxAmt', 'Amt'));
  const parties = child(d, 'RltdPties');
  const agents = child(d, 'RltdAgts');
  return compact({
    message_id: text(refs, 'MsgId'),
    account_servicer_reference: text(refs, 'AcctSvcrRef'),
    payment_information_id: text(refs, 'PmtInfId'),
    instruction_id: text(refs, 'InstrId'),
    end_to_end_id: text(refs, 'EndToEndId'),
    uetr: text(refs, 'UETR'),
    transaction_id: text(refs, 'TxId'),
    mandate_id: text(refs, 'MndtId'),
    cheque_number: text(refs, 'ChqNb'),
    clearing_system_reference: text(refs, 'ClrSysRef'),
    amount: amt?.amount,
    currency: amt?.currency,
    credit_debit: text(d, 'CdtDbtInd'),
    instructed_amount: readMoney(child(d, 'AmtDtls', 'InstdAmt', 'Amt')),
    bank_transaction_code: bankTxCode(child(d, 'BkTxCd')),
    initiating_party: readParty(child(parties, 'InitgPty')),
    debtor: readPartyBlock(parties, 'Dbtr', 'DbtrAcct', 'DbtrAgt', agents),
    ultimate_debtor: readParty(child(parties, 'UltmtDbtr')),
    creditor: readPartyBlock(parties, 'Cdtr', 'CdtrAcct', 'CdtrAgt', agents),
    ultimate_creditor: readParty(child(parties, 'UltmtCdtr')),
    purpose: code(child(d, 'Purp')),
    remittance_information: readRemittance(child(d, 'RmtInf')),
    interbank_settlement_date: text(d, 'RltdDts', 'IntrBkSttlmDt'),
    acceptance_date_time: text(d, 'RltdDts', 'AccptncDtTm'),
    return_reason: code(child(d, 'RtrInf', 'Rsn')),
    additional_information: text(d, 'AddtlTxInf'),
  })!;
}

function parseEntry(e: XEl): Json {
  const amt = readMoney(child(e, 'Amt'));
  return compact({
    entry_reference: text(e, 'NtryRef'),
    amount: amt?.amount,
    currency: amt?.currency,
    credit_debit: text(e, 'CdtDbtInd'),
    reversal: toBool(text(e, 'RvslInd')),
    status: code(child(e, 'Sts')),
    booking_date: dateChoice(child(e, 'BookgDt')),
    value_date: dateChoice(child(e, 'ValDt')),
    account_servicer_reference: text(e, 'AcctSvcrRef'),
    bank_transaction_code: bankTxCode(child(e, 'BkTxCd')),
    additional_information: text(e, 'AddtlNtryInf'),
    details: children(e, 'NtryDtls').flatMap((nd) => children(nd, 'TxDtls').map(parseDetail)),
  })!;
}

function parseReport(s: XEl, names: Names): Json {
  const acct = child(s, 'Acct');
  const total = child(s, 'TxsSummry', 'TtlNtries');
  return compact({
    id: text(s, 'Id'),
    pagination: pagination(child(s, names.pagination)),
    electronic_sequence_number: text(s, 'ElctrncSeqNb'),
    legal_sequence_number: text(s, 'LglSeqNb'),
    creation_date_time: text(s, 'CreDtTm'),
    from_date_time: text(s, 'FrToDt', 'FrDtTm'),
    to_date_time: text(s, 'FrToDt', 'ToDtTm'),
    copy_duplicate: text(s, 'CpyDplctInd'),
    account: compact({ ...(readAccount(acct) ?? {}), owner: readParty(child(acct, 'Ownr')), servicer: readAgent(child(acct, 'Svcr')) }),
    balances: names.balances
      ? children(s, 'Bal').map((b) => {
          const m = readMoney(child(b, 'Amt'));
          return compact({
            type: code(child(b, 'Tp', 'CdOrPrtry')),
            sub_type: code(child(b, 'Tp', 'SubTp')),
            amount: m?.amount,
            currency: m?.currency,
            credit_debit: text(b, 'CdtDbtInd'),
            date: dateChoice(child(b, 'Dt')),
          });
        })
      : undefined,
    transaction_summary: child(s, 'TxsSummry')
      ? compact({
          number_of_entries: text(total, 'NbOfNtries'),
          sum: text(total, 'Sum'),
          net_amount: text(total, 'TtlNetNtry', 'Amt') ?? text(total, 'TtlNetNtryAmt'),
          net_credit_debit: text(total, 'TtlNetNtry', 'CdtDbtInd') ?? text(total, 'CdtDbtInd'),
          credit: compact({ number_of_entries: text(s, 'TxsSummry', 'TtlCdtNtries', 'NbOfNtries'), sum: text(s, 'TxsSummry', 'TtlCdtNtries', 'Sum') }),
          debit: compact({ number_of_entries: text(s, 'TxsSummry', 'TtlDbtNtries', 'NbOfNtries'), sum: text(s, 'TxsSummry', 'TtlDbtNtries', 'Sum') }),
        })
      : undefined,
    entries: children(s, 'Ntry').map(parseEntry),
    additional_information: text(s, names.info),
  })!;
}

function parser(names: Names) {
  return (root: XEl): Json => {
    const gh = child(root, 'GrpHdr');
    return {
      group_header: compact({
        message_id: text(gh, 'MsgId'),
        creation_date_time: text(gh, 'CreDtTm'),
        message_recipient: readParty(child(gh, 'MsgRcpt')),
        pagination: pagination(child(gh, 'MsgPgntn')),
        additional_information: text(gh, 'AddtlInf'),
      }),
      [names.listKey]: children(root, names.report).map((s) => parseReport(s, names)),
    };
  };
}

// --- generation ---------------------------------------------------------------

interface BankTxCodeInput {
  domain_code?: string;
  family_code?: string;
  sub_family_code?: string;
  proprietary_code?: string;
  proprietary_issuer?: string;
}

interface DetailInput {
  message_id?: string;
  account_servicer_reference?: string;
  payment_information_id?: string;
  instruction_id?: string;
  end_to_end_id?: string;
  uetr?: string;
  transaction_id?: string;
  amount?: unknown;
  currency?: unknown;
  credit_debit?: string;
  debtor?: PartyWithAccount;
  creditor?: PartyWithAccount;
  ultimate_debtor?: Party;
  ultimate_creditor?: Party;
  purpose?: string;
  remittance_information?: Remittance | string;
  return_reason?: string;
  additional_information?: string;
}

interface EntryInput extends DetailInput {
  entry_reference?: string;
  status?: string;
  reversal?: boolean;
  booking_date?: string;
  value_date?: string;
  bank_transaction_code?: BankTxCodeInput;
  details?: DetailInput[];
}

interface BalanceInput {
  type?: string;
  amount?: unknown;
  currency?: unknown;
  credit_debit?: string;
  date?: string;
}

interface ReportInput {
  id?: string;
  electronic_sequence_number?: string;
  legal_sequence_number?: string;
  creation_date_time?: string;
  from_date_time?: string;
  to_date_time?: string;
  account?: Account & { owner?: Party; servicer?: Agent };
  currency?: string;
  balances?: BalanceInput[];
  entries?: EntryInput[];
  additional_information?: string;
}

const DETAIL_KEYS: Array<keyof DetailInput> = [
  'message_id', 'payment_information_id', 'instruction_id', 'end_to_end_id', 'uetr', 'transaction_id', 'debtor', 'creditor',
  'ultimate_debtor', 'ultimate_creditor', 'purpose', 'remittance_information', 'return_reason',
];

function creditDebit(v: unknown, pointer: string): 'CRDT' | 'DBIT' {
  if (v !== 'CRDT' && v !== 'DBIT') throw invalid(pointer, `${pointer} must be "CRDT" or "DBIT"`);
  return v;
}

function bankTxCodeXml(c: BankTxCodeInput | undefined, cd: string): XObj {
  if (c?.proprietary_code) {
    return { Prtry: { Cd: c.proprietary_code, Issr: c.proprietary_issuer } };
  }
  // BkTxCd is mandatory on every entry; without one, say "payments / received or issued credit transfer / other".
  return {
    Domn: {
      Cd: c?.domain_code ?? 'PMNT',
      Fmly: { Cd: c?.family_code ?? (cd === 'CRDT' ? 'RCDT' : 'ICDT'), SubFmlyCd: c?.sub_family_code ?? 'OTHR' },
    },
    Prtry: undefined,
  };
}

function detailXml(d: DetailInput, p: string, entryCurrency: string, entryCd: string, legacy: boolean): XObj {
  const ccy = d.currency === undefined ? entryCurrency : currencyCode(d.currency, `${p}/currency`);
  const amt = d.amount === undefined ? undefined : amountXml(d.amount, ccy, `${p}/amount`, `${p}/currency`);
  const cd = d.credit_debit === undefined ? entryCd : creditDebit(d.credit_debit, `${p}/credit_debit`);
  const debtor = obj<PartyWithAccount>(d.debtor, `${p}/debtor`);
  const creditor = obj<PartyWithAccount>(d.creditor, `${p}/creditor`);
  return {
    Refs: {
      MsgId: d.message_id,
      AcctSvcrRef: d.account_servicer_reference,
      PmtInfId: d.payment_information_id,
      InstrId: d.instruction_id,
      EndToEndId: d.end_to_end_id,
      UETR: d.uetr,
      TxId: d.transaction_id,
    },
    Amt: legacy ? undefined : amt,
    CdtDbtInd: legacy || !amt ? undefined : cd,
    AmtDtls: legacy && amt ? { TxAmt: { Amt: amt } } : undefined,
    RltdPties: {
      Dbtr: partyXml(debtor),
      DbtrAcct: accountXml(debtor?.account),
      UltmtDbtr: partyXml(d.ultimate_debtor),
      Cdtr: partyXml(creditor),
      CdtrAcct: accountXml(creditor?.account),
      UltmtCdtr: partyXml(d.ultimate_creditor),
    },
    RltdAgts: { DbtrAgt: agentXml(debtor?.agent), CdtrAgt: agentXml(creditor?.agent) },
    Purp: d.purpose ? { Cd: d.purpose } : undefined,
    RmtInf: remittanceXml(d.remittance_information),
    RtrInf: d.return_reason ? { Rsn: { Cd: d.return_reason } } : undefined,
    AddtlTxInf: d.additional_information,
  };
}

function builder(names: Names) {
  return (input: Json, version: string): BuildResult => {
    const legacy = version.endsWith('.001.02');
    const given = list<ReportInput>(input[names.listKey], `/${names.listKey}`);
    const reports = given
      ? given.map((r, i) => ({ r, p: `/${names.listKey}/${i}` }))
      : [{ r: { ...(input as ReportInput), id: (input.id ?? input.statement_id ?? input.notification_id) as string | undefined }, p: '' }];
    const ids: string[] = [];
    let entryCount = 0;
    const reportXml = reports.map(({ r, p }) => {
      const account = obj<ReportInput['account'] & object>(r.account, `${p}/account`, { required: true })!;
      if (!account.iban && !account.other) throw invalid(`${p}/account`, 'account.iban or account.other is required');
      const ccy = currencyCode(r.currency ?? account.currency, r.currency ? `${p}/currency` : `${p}/account/currency`);
      if (!names.balances && r.balances?.length) throw invalid(`${p}/balances`, 'camt.054 notifications carry no balances');
      const balances = (list<BalanceInput>(r.balances, `${p}/balances`) ?? []).map((b, i) => {
        const bp = `${p}/balances/${i}`;
        return {
          Tp: { CdOrPrtry: { Cd: str(b.type, `${bp}/type`, { required: true }) } },
          Amt: amountXml(b.amount, b.currency ?? ccy, `${bp}/amount`, `${bp}/currency`),
          CdtDbtInd: creditDebit(b.credit_debit, `${bp}/credit_debit`),
          Dt: str(b.date, `${bp}/date`, { required: true }),
        };
      });
      if (names.balances && !balances.length) throw invalid(`${p}/balances`, 'a statement needs at least one balance');
      let credits = { n: 0, sum: new Decimal(0) };
      let debits = { n: 0, sum: new Decimal(0) };
      let scale = 0;
      const entries = (list<EntryInput>(r.entries, `${p}/entries`) ?? []).map((e, i) => {
        const ep = `${p}/entries/${i}`;
        const amt = amountXml(e.amount, e.currency ?? ccy, `${ep}/amount`, `${ep}/currency`);
        const cd = creditDebit(e.credit_debit, `${ep}/credit_debit`);
        const value = new Decimal(amt['#'] as string);
        scale = Math.max(scale, ((amt['#'] as string).split('.')[1] ?? '').length);
        if (cd === 'CRDT') credits = { n: credits.n + 1, sum: credits.sum.plus(value) };
        else debits = { n: debits.n + 1, sum: debits.sum.plus(value) };
        const detailList = list<DetailInput>(e.details, `${ep}/details`);
        const shorthand = DETAIL_KEYS.some((k) => e[k] !== undefined);
        const details = detailList
          ? detailList.map((d, j) => detailXml(d, `${ep}/details/${j}`, amt['@Ccy'] as string, cd, legacy))
          : shorthand
            ? [detailXml({ ...e, amount: e.amount, currency: amt['@Ccy'] as string }, ep, amt['@Ccy'] as string, cd, legacy)]
            : [];
        return {
          NtryRef: e.entry_reference,
          Amt: amt,
          CdtDbtInd: cd,
          RvslInd: e.reversal === undefined ? undefined : String(e.reversal),
          Sts: e.status ?? 'BOOK',
          BookgDt: e.booking_date,
          ValDt: e.value_date,
          AcctSvcrRef: e.account_servicer_reference,
          BkTxCd: bankTxCodeXml(e.bank_transaction_code, cd),
          NtryDtls: details.length ? { TxDtls: details } : undefined,
          AddtlNtryInf: e.additional_information,
        };
      });
      entryCount += entries.length;
      const net = credits.sum.minus(debits.sum);
      const id = str(r.id, `${p}/id`) ?? newReference();
      ids.push(id);
      const total = credits.sum.plus(debits.sum).toFixed(scale);
      const report: XObj = {
        Id: id,
        ElctrncSeqNb: r.electronic_sequence_number,
        LglSeqNb: r.legal_sequence_number,
        CreDtTm: str(r.creation_date_time, `${p}/creation_date_time`) ?? nowDateTime(),
        FrToDt: r.from_date_time || r.to_date_time ? { FrDtTm: r.from_date_time, ToDtTm: r.to_date_time } : undefined,
        Acct: {
          ...accountXml({ ...account, currency: account.currency ?? ccy }),
          Ownr: partyXml(account.owner),
          Svcr: agentXml(account.servicer),
        },
        Bal: names.balances ? balances : undefined,
        TxsSummry: entries.length
          ? {
              TtlNtries: {
                NbOfNtries: String(entries.length),
                Sum: total,
                // Version 2 states the net as amount + indicator; later versions nest them.
                '?TtlNetNtryAmt': legacy ? net.abs().toFixed(scale) : undefined,
                '?CdtDbtInd': legacy ? (net.isNegative() ? 'DBIT' : 'CRDT') : undefined,
                '?TtlNetNtry': legacy ? undefined : { Amt: net.abs().toFixed(scale), CdtDbtInd: net.isNegative() ? 'DBIT' : 'CRDT' },
              },
              TtlCdtNtries: { NbOfNtries: String(credits.n), Sum: credits.sum.toFixed(scale) },
              TtlDbtNtries: { NbOfNtries: String(debits.n), Sum: debits.sum.toFixed(scale) },
            }
          : undefined,
        Ntry: entries,
        [names.info]: r.additional_information,
      };
      return report;
    });
    const messageId = str(input.message_id, '/message_id') ?? newReference();
    const first = reports[0].r.account;
    return {
      document: {
        [names.root]: {
          GrpHdr: {
            MsgId: messageId,
            CreDtTm: str(input.creation_date_time, '/creation_date_time') ?? nowDateTime(),
            MsgRcpt: partyXml(obj<Party>(input.message_recipient, '/message_recipient')),
          },
          [names.report]: reportXml,
        },
      },
      summary: { message_id: messageId, [`${names.listKey === 'statements' ? 'statement' : 'notification'}_ids`]: ids, number_of_entries: String(entryCount) },
      header: { from: { agent: first?.servicer }, to: { party: first?.owner } },
    };
  };
}

export const camt053: MessageHandler = { parse: parser(STATEMENT), build: builder(STATEMENT) };
export const camt054: MessageHandler = { parse: parser(NOTIFICATION), build: builder(NOTIFICATION) };
