import { amountXml, code, compact, invalid, list, newReference, newUetr, nowDateTime, obj, str, today, type Agent, type Party, type PartyWithAccount, type PaymentType, type Remittance } from '../common';
import { accountXml, agentXml, partyXml, paymentTypeXml, remittanceXml } from '../builders';
import { readAccount, readAgent, readMoney, readParty, readPartyBlock, readPaymentType, readRemittance } from '../readers';
import { child, children, text, type XEl } from '../xml';
import { schemaHasElement } from '../xsd';
import type { BuildResult, Json, MessageHandler } from './types';
import { sumAmounts, toBool } from './shared';

function parseTx(tx: XEl): Json {
  const amt = readMoney(child(tx, 'IntrBkSttlmAmt'));
  return compact({
    instruction_id: text(tx, 'PmtId', 'InstrId'),
    end_to_end_id: text(tx, 'PmtId', 'EndToEndId'),
    transaction_id: text(tx, 'PmtId', 'TxId'),
    uetr: text(tx, 'PmtId', 'UETR'),
    clearing_system_reference: text(tx, 'PmtId', 'ClrSysRef'),
    amount: amt?.amount,
    currency: amt?.currency,
    interbank_settlement_date: text(tx, 'IntrBkSttlmDt'),
    acceptance_date_time: text(tx, 'AccptncDtTm'),
    instructed_amount: readMoney(child(tx, 'InstdAmt')),
    exchange_rate: text(tx, 'XchgRate'),
    charge_bearer: text(tx, 'ChrgBr'),
    payment_type: readPaymentType(child(tx, 'PmtTpInf')),
    instructing_agent: readAgent(child(tx, 'InstgAgt')),
    instructed_agent: readAgent(child(tx, 'InstdAgt')),
    intermediary_agent_1: readAgent(child(tx, 'IntrmyAgt1')),
    ultimate_debtor: readParty(child(tx, 'UltmtDbtr')),
    initiating_party: readParty(child(tx, 'InitgPty')),
    debtor: readPartyBlock(tx, 'Dbtr', 'DbtrAcct', 'DbtrAgt'),
    creditor: readPartyBlock(tx, 'Cdtr', 'CdtrAcct', 'CdtrAgt'),
    ultimate_creditor: readParty(child(tx, 'UltmtCdtr')),
    purpose: code(child(tx, 'Purp')),
    remittance_information: readRemittance(child(tx, 'RmtInf')),
  })!;
}

function parse(root: XEl): Json {
  const gh = child(root, 'GrpHdr');
  return {
    group_header: compact({
      message_id: text(gh, 'MsgId'),
      creation_date_time: text(gh, 'CreDtTm'),
      batch_booking: toBool(text(gh, 'BtchBookg')),
      number_of_transactions: text(gh, 'NbOfTxs'),
      control_sum: text(gh, 'CtrlSum'),
      total_interbank_settlement_amount: readMoney(child(gh, 'TtlIntrBkSttlmAmt')),
      interbank_settlement_date: text(gh, 'IntrBkSttlmDt'),
      settlement_method: text(gh, 'SttlmInf', 'SttlmMtd'),
      settlement_account: readAccount(child(gh, 'SttlmInf', 'SttlmAcct')),
      clearing_system: code(child(gh, 'SttlmInf', 'ClrSys')),
      payment_type: readPaymentType(child(gh, 'PmtTpInf')),
      instructing_agent: readAgent(child(gh, 'InstgAgt')),
      instructed_agent: readAgent(child(gh, 'InstdAgt')),
    }),
    transactions: children(root, 'CdtTrfTxInf').map(parseTx),
  };
}

interface TxInput {
  amount?: unknown;
  currency?: unknown;
  debtor?: PartyWithAccount;
  creditor?: PartyWithAccount;
  ultimate_debtor?: Party;
  ultimate_creditor?: Party;
  initiating_party?: Party;
  end_to_end_id?: string;
  instruction_id?: string;
  transaction_id?: string;
  uetr?: string;
  interbank_settlement_date?: string;
  instructed_amount?: { amount?: unknown; currency?: unknown };
  charge_bearer?: string;
  payment_type?: PaymentType;
  instructing_agent?: Agent;
  instructed_agent?: Agent;
  purpose?: string;
  remittance_information?: Remittance | string;
}

const TX_KEYS = [
  'amount', 'currency', 'debtor', 'creditor', 'ultimate_debtor', 'ultimate_creditor', 'initiating_party', 'end_to_end_id',
  'instruction_id', 'transaction_id', 'uetr', 'instructed_amount', 'charge_bearer', 'purpose', 'remittance_information',
];

function requireAgent(p: PartyWithAccount, pointer: string): Agent {
  const a = p.agent;
  if (!a || !(a.bic || a.clearing_member_id || a.lei || a.name)) {
    throw invalid(`${pointer}/agent`, `${pointer.split('/').pop()}.agent (bic or clearing_member_id) is required in pacs.008`);
  }
  return a;
}

function build(input: Json, version: string): BuildResult {
  const txsIn = list<TxInput>(input.transactions, '/transactions');
  if (txsIn && !txsIn.length) throw invalid('/transactions', 'transactions must not be empty');
  const txs = txsIn ?? [Object.fromEntries(TX_KEYS.map((k) => [k, input[k]])) as TxInput];
  const settlementDate = str(input.interbank_settlement_date, '/interbank_settlement_date') ?? today();
  const amounts: string[] = [];
  const currencies = new Set<string>();
  const endToEndIds: string[] = [];
  const txIds: string[] = [];
  const uetrs: string[] = [];
  const txXml = txs.map((tx, i) => {
    const p = txsIn ? `/transactions/${i}` : '';
    const debtor = obj<PartyWithAccount>(tx.debtor, `${p}/debtor`, { required: true })!;
    const creditor = obj<PartyWithAccount>(tx.creditor, `${p}/creditor`, { required: true })!;
    const debtorAgent = requireAgent(debtor, `${p}/debtor`);
    const creditorAgent = requireAgent(creditor, `${p}/creditor`);
    const amt = amountXml(tx.amount, tx.currency, `${p}/amount`, `${p}/currency`);
    amounts.push(amt['#'] as string);
    currencies.add(amt['@Ccy'] as string);
    const e2e = str(tx.end_to_end_id, `${p}/end_to_end_id`) ?? newReference();
    const txId = str(tx.transaction_id, `${p}/transaction_id`) ?? newReference();
    const uetr = str(tx.uetr, `${p}/uetr`);
    const autoUetr = uetr || !schemaHasElement(version, 'UETR') ? undefined : newUetr();
    endToEndIds.push(e2e);
    txIds.push(txId);
    if (uetr ?? autoUetr) uetrs.push((uetr ?? autoUetr)!);
    const instd = tx.instructed_amount;
    return {
      PmtId: { InstrId: str(tx.instruction_id, `${p}/instruction_id`), EndToEndId: e2e, TxId: txId, UETR: uetr ?? autoUetr },
      PmtTpInf: paymentTypeXml(tx.payment_type),
      IntrBkSttlmAmt: amt,
      InstdAmt: instd ? amountXml(instd.amount, instd.currency, `${p}/instructed_amount/amount`, `${p}/instructed_amount/currency`) : undefined,
      ChrgBr: tx.charge_bearer ?? 'SLEV',
      InstgAgt: agentXml(tx.instructing_agent),
      InstdAgt: agentXml(tx.instructed_agent),
      UltmtDbtr: partyXml(tx.ultimate_debtor),
      InitgPty: partyXml(tx.initiating_party),
      Dbtr: partyXml(debtor),
      DbtrAcct: accountXml(debtor.account),
      DbtrAgt: agentXml(debtorAgent),
      CdtrAgt: agentXml(creditorAgent),
      Cdtr: partyXml(creditor),
      CdtrAcct: accountXml(creditor.account),
      UltmtCdtr: partyXml(tx.ultimate_creditor),
      Purp: tx.purpose ? { Cd: tx.purpose } : undefined,
      RmtInf: remittanceXml(tx.remittance_information),
    };
  });
  const messageId = str(input.message_id, '/message_id') ?? newReference();
  const total = sumAmounts(amounts);
  const instructing = obj<Agent>(input.instructing_agent, '/instructing_agent');
  const instructed = obj<Agent>(input.instructed_agent, '/instructed_agent');
  const clearingSystem = str(input.clearing_system, '/clearing_system');
  return {
    document: {
      FIToFICstmrCdtTrf: {
        GrpHdr: {
          MsgId: messageId,
          CreDtTm: str(input.creation_date_time, '/creation_date_time') ?? nowDateTime(),
          NbOfTxs: String(txXml.length),
          CtrlSum: total,
          // A group total only makes sense when every transaction settles in one currency.
          TtlIntrBkSttlmAmt: currencies.size === 1 ? { '#': total, '@Ccy': [...currencies][0] } : undefined,
          IntrBkSttlmDt: settlementDate,
          SttlmInf: {
            SttlmMtd: str(input.settlement_method, '/settlement_method') ?? 'CLRG',
            ClrSys: clearingSystem ? { Cd: clearingSystem } : undefined,
          },
          PmtTpInf: paymentTypeXml(obj<PaymentType>(input.payment_type, '/payment_type')),
          InstgAgt: agentXml(instructing),
          InstdAgt: agentXml(instructed),
        },
        CdtTrfTxInf: txXml,
      },
    },
    summary: {
      message_id: messageId,
      end_to_end_ids: endToEndIds,
      transaction_ids: txIds,
      uetrs,
      number_of_transactions: String(txXml.length),
      control_sum: total,
      interbank_settlement_date: settlementDate,
    },
    header: {
      from: { agent: instructing ?? txs[0].debtor?.agent },
      to: { agent: instructed ?? txs[0].creditor?.agent },
    },
  };
}

export const pacs008: MessageHandler = { parse, build };
