/** Pieces shared by the two status reports, pacs.002 and pain.002. */
import { amountXml, compact, dateChoice, invalid, list, obj, str, type Agent, type PartyWithAccount, type Remittance } from '../common';
import { accountXml, agentXml, partyXml, reasonsFromInput, reasonsXml, remittanceXml } from '../builders';
import { readAgent, readMoney, readPartyBlock, readReasons, readRemittance } from '../readers';
import type { XObj } from '../build';
import { child, children, text, type XEl } from '../xml';
import type { Json } from './types';

export function parseOriginalGroup(g: XEl | undefined): Json | undefined {
  if (!g) return undefined;
  return compact({
    original_message_id: text(g, 'OrgnlMsgId'),
    original_message_name_id: text(g, 'OrgnlMsgNmId'),
    original_creation_date_time: text(g, 'OrgnlCreDtTm'),
    original_number_of_transactions: text(g, 'OrgnlNbOfTxs'),
    original_control_sum: text(g, 'OrgnlCtrlSum'),
    group_status: text(g, 'GrpSts'),
    reasons: readReasons(children(g, 'StsRsnInf')),
  });
}

export function parseStatusTx(tx: XEl): Json {
  const ref = child(tx, 'OrgnlTxRef');
  const amt = readMoney(child(ref, 'IntrBkSttlmAmt')) ?? readMoney(child(ref, 'Amt', 'InstdAmt'));
  return compact({
    status_id: text(tx, 'StsId'),
    original_message_id: text(tx, 'OrgnlGrpInf', 'OrgnlMsgId'),
    original_message_name_id: text(tx, 'OrgnlGrpInf', 'OrgnlMsgNmId'),
    original_instruction_id: text(tx, 'OrgnlInstrId'),
    original_end_to_end_id: text(tx, 'OrgnlEndToEndId'),
    original_transaction_id: text(tx, 'OrgnlTxId'),
    original_uetr: text(tx, 'OrgnlUETR'),
    status: text(tx, 'TxSts'),
    reasons: readReasons(children(tx, 'StsRsnInf')),
    acceptance_date_time: text(tx, 'AccptncDtTm'),
    account_servicer_reference: text(tx, 'AcctSvcrRef'),
    clearing_system_reference: text(tx, 'ClrSysRef'),
    instructing_agent: readAgent(child(tx, 'InstgAgt')),
    instructed_agent: readAgent(child(tx, 'InstdAgt')),
    amount: amt?.amount,
    currency: amt?.currency,
    original_interbank_settlement_date: text(ref, 'IntrBkSttlmDt'),
    original_requested_execution_date: dateChoice(child(ref, 'ReqdExctnDt')),
    debtor: readPartyBlock(ref, 'Dbtr', 'DbtrAcct', 'DbtrAgt'),
    creditor: readPartyBlock(ref, 'Cdtr', 'CdtrAcct', 'CdtrAgt'),
    remittance_information: readRemittance(child(ref, 'RmtInf')),
  })!;
}

export interface StatusTxInput {
  status_id?: string;
  original_instruction_id?: string;
  original_end_to_end_id?: string;
  original_transaction_id?: string;
  original_uetr?: string;
  status?: string;
  reasons?: unknown;
  reason_code?: string;
  reason_proprietary?: string;
  reason_information?: unknown;
  acceptance_date_time?: string;
  account_servicer_reference?: string;
  clearing_system_reference?: string;
  instructing_agent?: Agent;
  instructed_agent?: Agent;
  amount?: unknown;
  currency?: unknown;
  original_interbank_settlement_date?: string;
  original_requested_execution_date?: string;
  debtor?: PartyWithAccount;
  creditor?: PartyWithAccount;
  remittance_information?: Remittance | string;
}

export const TX_REF_KEYS = ['original_instruction_id', 'original_end_to_end_id', 'original_transaction_id', 'original_uetr'] as const;

/** True when generate input names an original transaction at top level (single-transaction shorthand). */
export function hasTxRefs(input: Json): boolean {
  return TX_REF_KEYS.some((k) => input[k] !== undefined && input[k] !== null && input[k] !== '');
}

/** `transactions[]`, or the top-level shorthand for one transaction, or none. */
export function statusTxInputs(input: Json, pointer: string): Array<{ tx: StatusTxInput; pointer: string }> {
  const given = list<StatusTxInput>(input.transactions, `${pointer}/transactions`);
  if (given) return given.map((tx, i) => ({ tx, pointer: `${pointer}/transactions/${i}` }));
  return hasTxRefs(input) ? [{ tx: input as StatusTxInput, pointer }] : [];
}

export function buildStatusTx(tx: StatusTxInput, p: string, family: 'pacs' | 'pain'): XObj {
  const status = str(tx.status, `${p}/status`, { required: true });
  const amount =
    tx.amount === undefined ? undefined : amountXml(tx.amount, tx.currency, `${p}/amount`, `${p}/currency`);
  const debtor = obj<PartyWithAccount>(tx.debtor, `${p}/debtor`);
  const creditor = obj<PartyWithAccount>(tx.creditor, `${p}/creditor`);
  const reasons = reasonsFromInput(tx as Json, p);
  if (status === 'RJCT' && !reasons) throw invalid(`${p}/reason_code`, 'a rejected transaction needs a reason (reason_code or reasons)');
  return {
    StsId: tx.status_id,
    OrgnlInstrId: tx.original_instruction_id,
    OrgnlEndToEndId: tx.original_end_to_end_id,
    OrgnlTxId: tx.original_transaction_id,
    OrgnlUETR: tx.original_uetr,
    TxSts: status,
    StsRsnInf: reasonsXml(reasons),
    AccptncDtTm: tx.acceptance_date_time,
    AcctSvcrRef: tx.account_servicer_reference,
    ClrSysRef: tx.clearing_system_reference,
    InstgAgt: agentXml(tx.instructing_agent),
    InstdAgt: agentXml(tx.instructed_agent),
    OrgnlTxRef: {
      IntrBkSttlmAmt: family === 'pacs' ? amount : undefined,
      Amt: family === 'pain' && amount ? { InstdAmt: amount } : undefined,
      IntrBkSttlmDt: tx.original_interbank_settlement_date,
      ReqdExctnDt: tx.original_requested_execution_date,
      RmtInf: remittanceXml(tx.remittance_information),
      Dbtr: partyXml(debtor),
      DbtrAcct: accountXml(debtor?.account),
      DbtrAgt: agentXml(debtor?.agent),
      CdtrAgt: agentXml(creditor?.agent),
      Cdtr: partyXml(creditor),
      CdtrAcct: accountXml(creditor?.account),
    },
  };
}

export function originalGroupXml(input: Json, pointer: string, defaultNameId: string, withStatus: boolean): XObj {
  return {
    OrgnlMsgId: str(input.original_message_id, `${pointer}/original_message_id`, { required: true }),
    OrgnlMsgNmId: str(input.original_message_name_id, `${pointer}/original_message_name_id`) ?? defaultNameId,
    OrgnlCreDtTm: str(input.original_creation_date_time, `${pointer}/original_creation_date_time`),
    OrgnlNbOfTxs: str(input.original_number_of_transactions, `${pointer}/original_number_of_transactions`),
    OrgnlCtrlSum: str(input.original_control_sum, `${pointer}/original_control_sum`),
    GrpSts: withStatus ? str(input.group_status, `${pointer}/group_status`) : undefined,
    StsRsnInf: withStatus
      ? reasonsXml(list(input.group_reasons, `${pointer}/group_reasons`) ?? (withStatusReasons(input, pointer)))
      : undefined,
  };
}

/** With no transaction given, top-level reason shorthands describe the group status. */
function withStatusReasons(input: Json, pointer: string) {
  return hasTxRefs(input) || input.transactions || input.original_payment_infos || input.original_payment_information_id
    ? undefined : reasonsFromInput(input, pointer);
}
