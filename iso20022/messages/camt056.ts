import { amountXml, compact, invalid, list, newReference, nowDateTime, obj, str, type Agent, type PartyWithAccount, type Remittance } from '../common';
import { accountXml, agentXml, partyXml, reasonsFromInput, reasonsXml, remittanceXml } from '../builders';
import { readAgent, readMoney, readParty, readPartyBlock, readReasons, readRemittance } from '../readers';
import { child, children, text, type XEl } from '../xml';
import type { BuildResult, Json, MessageHandler } from './types';
import { sumAmounts, toBool } from './shared';

function parseCase(el: XEl | undefined): Json | undefined {
  if (!el) return undefined;
  return compact({ id: text(el, 'Id'), creator: readParty(child(el, 'Cretr')), reopen: toBool(text(el, 'ReopCaseIndctn')) });
}

function parseTx(tx: XEl): Json {
  const ref = child(tx, 'OrgnlTxRef');
  const amt = readMoney(child(tx, 'OrgnlIntrBkSttlmAmt'));
  return compact({
    cancellation_id: text(tx, 'CxlId'),
    case: parseCase(child(tx, 'Case')),
    original_message_id: text(tx, 'OrgnlGrpInf', 'OrgnlMsgId'),
    original_message_name_id: text(tx, 'OrgnlGrpInf', 'OrgnlMsgNmId'),
    original_creation_date_time: text(tx, 'OrgnlGrpInf', 'OrgnlCreDtTm'),
    original_instruction_id: text(tx, 'OrgnlInstrId'),
    original_end_to_end_id: text(tx, 'OrgnlEndToEndId'),
    original_transaction_id: text(tx, 'OrgnlTxId'),
    original_uetr: text(tx, 'OrgnlUETR'),
    original_clearing_system_reference: text(tx, 'OrgnlClrSysRef'),
    amount: amt?.amount,
    currency: amt?.currency,
    original_interbank_settlement_date: text(tx, 'OrgnlIntrBkSttlmDt'),
    assigner: readAgent(child(tx, 'Assgnr')),
    assignee: readAgent(child(tx, 'Assgne')),
    reasons: readReasons(children(tx, 'CxlRsnInf')),
    debtor: readPartyBlock(ref, 'Dbtr', 'DbtrAcct', 'DbtrAgt'),
    creditor: readPartyBlock(ref, 'Cdtr', 'CdtrAcct', 'CdtrAgt'),
    remittance_information: readRemittance(child(ref, 'RmtInf')),
  })!;
}

function parse(root: XEl): Json {
  const a = child(root, 'Assgnmt');
  return {
    group_header: compact({ message_id: text(a, 'Id'), creation_date_time: text(a, 'CreDtTm') }),
    assignment: compact({
      id: text(a, 'Id'),
      assigner: readParty(child(a, 'Assgnr')),
      assignee: readParty(child(a, 'Assgne')),
      creation_date_time: text(a, 'CreDtTm'),
    }),
    case: parseCase(child(root, 'Case')),
    control_data: compact({ number_of_transactions: text(root, 'CtrlData', 'NbOfTxs'), control_sum: text(root, 'CtrlData', 'CtrlSum') }),
    underlying: children(root, 'Undrlyg').map((u) => {
      const g = child(u, 'OrgnlGrpInfAndCxl');
      return compact({
        original_group: g
          ? compact({
              group_cancellation_id: text(g, 'GrpCxlId'),
              original_message_id: text(g, 'OrgnlMsgId'),
              original_message_name_id: text(g, 'OrgnlMsgNmId'),
              original_creation_date_time: text(g, 'OrgnlCreDtTm'),
              number_of_transactions: text(g, 'NbOfTxs'),
              control_sum: text(g, 'CtrlSum'),
              group_cancellation: toBool(text(g, 'GrpCxl')),
              reasons: readReasons(children(g, 'CxlRsnInf')),
            })
          : undefined,
        transactions: children(u, 'TxInf').map(parseTx),
      });
    }),
  };
}

interface TxInput extends Json {
  cancellation_id?: string;
  original_message_id?: string;
  original_message_name_id?: string;
  original_creation_date_time?: string;
  original_instruction_id?: string;
  original_end_to_end_id?: string;
  original_transaction_id?: string;
  original_uetr?: string;
  amount?: unknown;
  currency?: unknown;
  original_interbank_settlement_date?: string;
  debtor?: PartyWithAccount;
  creditor?: PartyWithAccount;
  remittance_information?: Remittance | string;
}

const TX_KEYS = [
  'cancellation_id', 'original_instruction_id', 'original_end_to_end_id', 'original_transaction_id', 'original_uetr', 'amount',
  'currency', 'original_interbank_settlement_date', 'debtor', 'creditor', 'remittance_information', 'reasons', 'reason_code',
  'reason_proprietary', 'reason_information',
];

function build(input: Json): BuildResult {
  const assigner = obj<Agent>(input.assigner, '/assigner', { required: true })!;
  const assignee = obj<Agent>(input.assignee, '/assignee', { required: true })!;
  const txsIn = list<TxInput>(input.transactions, '/transactions');
  if (txsIn && !txsIn.length) throw invalid('/transactions', 'transactions must not be empty');
  const txs = txsIn ?? [Object.fromEntries(TX_KEYS.map((k) => [k, input[k]])) as TxInput];
  const amounts: string[] = [];
  const cancellationIds: string[] = [];
  const txXml = txs.map((tx, i) => {
    const p = txsIn ? `/transactions/${i}` : '';
    if (!tx.original_end_to_end_id && !tx.original_uetr && !tx.original_transaction_id && !tx.original_instruction_id) {
      throw invalid(`${p}/original_end_to_end_id`, 'name the payment to cancel: original_end_to_end_id, original_uetr, original_transaction_id or original_instruction_id');
    }
    const reasons = reasonsFromInput(tx, p);
    if (!reasons) throw invalid(`${p}/reason_code`, 'a cancellation reason is required (reason_code, e.g. DUPL, CUST, FRAD, or reasons)');
    const amt = tx.amount === undefined ? undefined : amountXml(tx.amount, tx.currency, `${p}/amount`, `${p}/currency`);
    if (amt) amounts.push(amt['#'] as string);
    const cxlId = str(tx.cancellation_id, `${p}/cancellation_id`) ?? newReference();
    cancellationIds.push(cxlId);
    const debtor = obj<PartyWithAccount>(tx.debtor, `${p}/debtor`);
    const creditor = obj<PartyWithAccount>(tx.creditor, `${p}/creditor`);
    return {
      CxlId: cxlId,
      OrgnlGrpInf: {
        OrgnlMsgId: str(tx.original_message_id ?? input.original_message_id, `${p}/original_message_id`, { required: true }),
        OrgnlMsgNmId: str(tx.original_message_name_id ?? input.original_message_name_id, `${p}/original_message_name_id`) ?? 'pacs.008.001.08',
        OrgnlCreDtTm: str(tx.original_creation_date_time ?? input.original_creation_date_time, `${p}/original_creation_date_time`),
      },
      OrgnlInstrId: tx.original_instruction_id,
      OrgnlEndToEndId: tx.original_end_to_end_id,
      OrgnlTxId: tx.original_transaction_id,
      OrgnlUETR: tx.original_uetr,
      OrgnlIntrBkSttlmAmt: amt,
      OrgnlIntrBkSttlmDt: tx.original_interbank_settlement_date,
      CxlRsnInf: reasonsXml(reasons),
      OrgnlTxRef:
        debtor || creditor || tx.remittance_information
          ? {
              RmtInf: remittanceXml(tx.remittance_information),
              Dbtr: partyXml(debtor),
              DbtrAcct: accountXml(debtor?.account),
              DbtrAgt: agentXml(debtor?.agent),
              CdtrAgt: agentXml(creditor?.agent),
              Cdtr: partyXml(creditor),
              CdtrAcct: accountXml(creditor?.account),
            }
          : undefined,
    };
  });
  const messageId = str(input.message_id ?? input.assignment_id, '/message_id') ?? newReference();
  const caseId = str(input.case_id, '/case_id');
  return {
    document: {
      FIToFIPmtCxlReq: {
        Assgnmt: {
          Id: messageId,
          Assgnr: { Agt: agentXml(assigner) },
          Assgne: { Agt: agentXml(assignee) },
          CreDtTm: str(input.creation_date_time, '/creation_date_time') ?? nowDateTime(),
        },
        Case: caseId ? { Id: caseId, Cretr: { Agt: agentXml(assigner) } } : undefined,
        CtrlData: { NbOfTxs: String(txXml.length), CtrlSum: amounts.length === txXml.length ? sumAmounts(amounts) : undefined },
        Undrlyg: { TxInf: txXml },
      },
    },
    summary: { message_id: messageId, cancellation_ids: cancellationIds, number_of_transactions: String(txXml.length) },
    header: { from: { agent: assigner }, to: { agent: assignee } },
  };
}

export const camt056: MessageHandler = { parse, build };
