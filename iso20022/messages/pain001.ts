import { amountXml, code, compact, dateChoice, invalid, list, newReference, newUetr, nowDateTime, obj, str, today, type Party, type PartyWithAccount, type PaymentType, type Remittance } from '../common';
import { accountXml, agentOrNotProvided, partyXml, paymentTypeXml, remittanceXml } from '../builders';
import { readAgent, readParty, readPartyBlock, readPaymentType, readRemittance } from '../readers';
import { child, children, text, type XEl } from '../xml';
import { schemaHasElement } from '../xsd';
import type { BuildResult, Json, MessageHandler } from './types';
import { sumAmounts, toBool } from './shared';

function parseTx(tx: XEl): Json {
  const instd = child(tx, 'Amt', 'InstdAmt');
  const eqvt = child(tx, 'Amt', 'EqvtAmt');
  return compact({
    instruction_id: text(tx, 'PmtId', 'InstrId'),
    end_to_end_id: text(tx, 'PmtId', 'EndToEndId'),
    uetr: text(tx, 'PmtId', 'UETR'),
    amount: instd?.text ?? text(eqvt, 'Amt'),
    currency: instd?.attrs.Ccy ?? child(eqvt, 'Amt')?.attrs.Ccy,
    equivalent_amount_transfer_currency: text(eqvt, 'CcyOfTrf'),
    payment_type: readPaymentType(child(tx, 'PmtTpInf')),
    charge_bearer: text(tx, 'ChrgBr'),
    ultimate_debtor: readParty(child(tx, 'UltmtDbtr')),
    creditor: readPartyBlock(tx, 'Cdtr', 'CdtrAcct', 'CdtrAgt'),
    ultimate_creditor: readParty(child(tx, 'UltmtCdtr')),
    instruction_for_debtor_agent: text(tx, 'InstrForDbtrAgt'),
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
      number_of_transactions: text(gh, 'NbOfTxs'),
      control_sum: text(gh, 'CtrlSum'),
      initiating_party: readParty(child(gh, 'InitgPty')),
      forwarding_agent: readAgent(child(gh, 'FwdgAgt')),
    }),
    payment_infos: children(root, 'PmtInf').map((pi) =>
      compact({
        payment_information_id: text(pi, 'PmtInfId'),
        payment_method: text(pi, 'PmtMtd'),
        batch_booking: toBool(text(pi, 'BtchBookg')),
        number_of_transactions: text(pi, 'NbOfTxs'),
        control_sum: text(pi, 'CtrlSum'),
        payment_type: readPaymentType(child(pi, 'PmtTpInf')),
        requested_execution_date: dateChoice(child(pi, 'ReqdExctnDt')),
        debtor: readPartyBlock(pi, 'Dbtr', 'DbtrAcct', 'DbtrAgt'),
        ultimate_debtor: readParty(child(pi, 'UltmtDbtr')),
        charge_bearer: text(pi, 'ChrgBr'),
        transactions: children(pi, 'CdtTrfTxInf').map(parseTx),
      }),
    ),
  };
}

interface TxInput {
  amount?: unknown;
  currency?: unknown;
  creditor?: PartyWithAccount;
  ultimate_creditor?: Party;
  ultimate_debtor?: Party;
  end_to_end_id?: string;
  instruction_id?: string;
  uetr?: string;
  charge_bearer?: string;
  payment_type?: PaymentType;
  purpose?: string;
  remittance_information?: Remittance | string;
  instruction_for_debtor_agent?: string;
}

interface PmtInfInput {
  payment_information_id?: string;
  payment_method?: string;
  batch_booking?: boolean;
  requested_execution_date?: string;
  debtor?: PartyWithAccount;
  ultimate_debtor?: Party;
  charge_bearer?: string;
  payment_type?: PaymentType;
  transactions?: TxInput[];
}

const TX_KEYS = ['amount', 'currency', 'creditor', 'end_to_end_id', 'instruction_id', 'uetr', 'remittance_information', 'purpose', 'ultimate_creditor'];

function build(input: Json, version: string): BuildResult {
  // Three accepted shapes: payment_infos[], one payment info with transactions[], or a single transfer.
  let infos: Array<{ info: PmtInfInput; pointer: string }>;
  const given = list<PmtInfInput>(input.payment_infos, '/payment_infos');
  if (given) {
    if (!given.length) throw invalid('/payment_infos', 'payment_infos must not be empty');
    infos = given.map((info, i) => ({ info, pointer: `/payment_infos/${i}` }));
  } else {
    const txs = list<TxInput>(input.transactions, '/transactions');
    const single = Object.fromEntries(TX_KEYS.map((k) => [k, input[k]])) as TxInput;
    infos = [{ info: { ...(input as PmtInfInput), transactions: txs ?? [single] }, pointer: '' }];
  }

  const endToEndIds: string[] = [];
  const uetrs: string[] = [];
  const amounts: string[] = [];
  const pmtInfIds: string[] = [];
  const pmtInfs = infos.map(({ info, pointer }) => {
    const debtor = obj<PartyWithAccount>(info.debtor, `${pointer}/debtor`, { required: true })!;
    if (!debtor.account) throw invalid(`${pointer}/debtor/account`, 'debtor.account (iban or other id) is required');
    const txs = info.transactions ?? [];
    if (!txs.length) throw invalid(`${pointer}/transactions`, 'at least one transaction is required');
    const piAmounts: string[] = [];
    const txXml = txs.map((tx, j) => {
      const tp = pointer === '' && !input.transactions ? '' : `${pointer}/transactions/${j}`;
      const creditor = obj<PartyWithAccount>(tx.creditor, `${tp}/creditor`, { required: true })!;
      if (!creditor.account) throw invalid(`${tp}/creditor/account`, 'creditor.account (iban or other id) is required');
      const amt = amountXml(tx.amount, tx.currency, `${tp}/amount`, `${tp}/currency`);
      piAmounts.push(amt['#'] as string);
      const e2e = str(tx.end_to_end_id, `${tp}/end_to_end_id`) ?? newReference();
      const uetr = str(tx.uetr, `${tp}/uetr`);
      const autoUetr = uetr || !schemaHasElement(version, 'UETR') ? undefined : newUetr();
      endToEndIds.push(e2e);
      return {
        PmtId: { InstrId: str(tx.instruction_id, `${tp}/instruction_id`), EndToEndId: e2e, UETR: uetr ?? autoUetr },
        PmtTpInf: paymentTypeXml(tx.payment_type),
        Amt: { InstdAmt: amt },
        ChrgBr: tx.charge_bearer,
        UltmtDbtr: partyXml(tx.ultimate_debtor),
        CdtrAgt: creditor.agent ? agentOrNotProvided(creditor.agent) : undefined,
        Cdtr: partyXml(creditor),
        CdtrAcct: accountXml(creditor.account),
        UltmtCdtr: partyXml(tx.ultimate_creditor),
        InstrForDbtrAgt: tx.instruction_for_debtor_agent,
        Purp: tx.purpose ? { Cd: tx.purpose } : undefined,
        RmtInf: remittanceXml(tx.remittance_information),
        _uetr: uetr ?? autoUetr,
      };
    });
    for (const t of txXml) {
      if (t._uetr) uetrs.push(t._uetr);
      delete (t as { _uetr?: string })._uetr;
    }
    amounts.push(...piAmounts);
    const pmtInfId = str(info.payment_information_id, `${pointer}/payment_information_id`) ?? newReference();
    pmtInfIds.push(pmtInfId);
    return {
      PmtInfId: pmtInfId,
      PmtMtd: info.payment_method ?? 'TRF',
      BtchBookg: info.batch_booking === undefined ? undefined : String(info.batch_booking),
      NbOfTxs: String(txXml.length),
      CtrlSum: sumAmounts(piAmounts),
      PmtTpInf: paymentTypeXml(info.payment_type),
      ReqdExctnDt: str(info.requested_execution_date, `${pointer}/requested_execution_date`) ?? today(),
      Dbtr: partyXml(debtor),
      DbtrAcct: accountXml(debtor.account),
      DbtrAgt: agentOrNotProvided(debtor.agent),
      UltmtDbtr: partyXml(info.ultimate_debtor),
      ChrgBr: info.charge_bearer ?? 'SLEV',
      CdtTrfTxInf: txXml,
    };
  });

  const messageId = str(input.message_id, '/message_id') ?? newReference();
  const firstDebtor = infos[0].info.debtor!;
  const initiating = obj<Party>(input.initiating_party, '/initiating_party') ?? { name: firstDebtor.name, identifiers: firstDebtor.identifiers };
  return {
    document: {
      CstmrCdtTrfInitn: {
        GrpHdr: {
          MsgId: messageId,
          CreDtTm: str(input.creation_date_time, '/creation_date_time') ?? nowDateTime(),
          NbOfTxs: String(amounts.length),
          CtrlSum: sumAmounts(amounts),
          InitgPty: partyXml(initiating),
        },
        PmtInf: pmtInfs,
      },
    },
    summary: {
      message_id: messageId,
      payment_information_ids: pmtInfIds,
      end_to_end_ids: endToEndIds,
      uetrs,
      number_of_transactions: String(amounts.length),
      control_sum: sumAmounts(amounts),
    },
    header: { from: { party: initiating }, to: { agent: firstDebtor.agent } },
  };
}

export const pain001: MessageHandler = { parse, build };
