import { compact, invalid, list, newReference, nowDateTime, obj, str, type Agent, type Party } from '../common';
import { agentXml, partyXml, reasonsFromInput, reasonsXml } from '../builders';
import { readAgent, readParty, readReasons } from '../readers';
import { child, children, text, type XEl } from '../xml';
import type { BuildResult, Json, MessageHandler } from './types';
import { buildStatusTx, hasTxRefs, originalGroupXml, parseOriginalGroup, parseStatusTx, statusTxInputs, type StatusTxInput } from './status';

function parse(root: XEl): Json {
  const gh = child(root, 'GrpHdr');
  return {
    group_header: compact({
      message_id: text(gh, 'MsgId'),
      creation_date_time: text(gh, 'CreDtTm'),
      initiating_party: readParty(child(gh, 'InitgPty')),
      forwarding_agent: readAgent(child(gh, 'FwdgAgt')),
      debtor_agent: readAgent(child(gh, 'DbtrAgt')),
      creditor_agent: readAgent(child(gh, 'CdtrAgt')),
    }),
    original_group_information: parseOriginalGroup(child(root, 'OrgnlGrpInfAndSts')),
    original_payment_infos: children(root, 'OrgnlPmtInfAndSts').map((pi) =>
      compact({
        original_payment_information_id: text(pi, 'OrgnlPmtInfId'),
        original_number_of_transactions: text(pi, 'OrgnlNbOfTxs'),
        original_control_sum: text(pi, 'OrgnlCtrlSum'),
        status: text(pi, 'PmtInfSts'),
        reasons: readReasons(children(pi, 'StsRsnInf')),
        transactions: children(pi, 'TxInfAndSts').map(parseStatusTx),
      }),
    ),
  };
}

interface PmtInfStatusInput extends Json {
  original_payment_information_id?: string;
  status?: string;
}

function build(input: Json): BuildResult {
  let infos: Array<{ info: PmtInfStatusInput; pointer: string }>;
  const given = list<PmtInfStatusInput>(input.original_payment_infos, '/original_payment_infos');
  if (given) infos = given.map((info, i) => ({ info, pointer: `/original_payment_infos/${i}` }));
  else if (input.original_payment_information_id) infos = [{ info: input, pointer: '' }];
  else infos = [];

  const pmtInfXml = infos.map(({ info, pointer }) => {
    const explicit = given !== undefined;
    const txs = explicit
      ? (list<StatusTxInput>(info.transactions, `${pointer}/transactions`) ?? []).map((tx, i) => ({ tx, pointer: `${pointer}/transactions/${i}` }))
      : statusTxInputs(info, pointer);
    // In the top-level shorthand, status and reason belong to the transaction when one is named.
    const ownStatus = explicit || !txs.length;
    const piStatus = ownStatus ? str(info.status, `${pointer}/status`) : undefined;
    return {
      OrgnlPmtInfId: str(info.original_payment_information_id, `${pointer}/original_payment_information_id`, { required: true }),
      OrgnlNbOfTxs: str(info.original_number_of_transactions, `${pointer}/original_number_of_transactions`),
      OrgnlCtrlSum: str(info.original_control_sum, `${pointer}/original_control_sum`),
      PmtInfSts: piStatus,
      StsRsnInf: ownStatus ? reasonsXml(reasonsFromInput(info, pointer)) : undefined,
      TxInfAndSts: txs.map(({ tx, pointer: p }) => buildStatusTx(tx, p, 'pain')),
    };
  });
  const groupStatus = str(input.group_status, '/group_status') ?? (!infos.length ? str(input.status, '/status') : undefined);
  if (!infos.length && !groupStatus) {
    throw invalid('/status', 'give a status: original_payment_infos[], original_payment_information_id with a status, or group_status');
  }
  const messageId = str(input.message_id, '/message_id') ?? newReference();
  const initiating = obj<Party>(input.initiating_party, '/initiating_party');
  const debtorAgent = obj<Agent>(input.debtor_agent, '/debtor_agent');
  return {
    document: {
      CstmrPmtStsRpt: {
        GrpHdr: {
          MsgId: messageId,
          CreDtTm: str(input.creation_date_time, '/creation_date_time') ?? nowDateTime(),
          InitgPty: partyXml(initiating),
          DbtrAgt: agentXml(debtorAgent),
          CdtrAgt: agentXml(obj<Agent>(input.creditor_agent, '/creditor_agent')),
        },
        OrgnlGrpInfAndSts: originalGroupXml({ ...input, group_status: groupStatus }, '', 'pain.001.001.09', true),
        OrgnlPmtInfAndSts: pmtInfXml,
      },
    },
    summary: {
      message_id: messageId,
      original_message_id: input.original_message_id as string,
      number_of_payment_infos: String(pmtInfXml.length),
      has_transaction_statuses: infos.some(({ info }) => hasTxRefs(info) || Array.isArray(info.transactions)),
    },
    header: { from: { agent: debtorAgent }, to: { party: initiating } },
  };
}

export const pain002: MessageHandler = { parse, build };
