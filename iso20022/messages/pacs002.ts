import { invalid, newReference, nowDateTime, obj, str, type Agent, compact } from '../common';
import { agentXml } from '../builders';
import { readAgent } from '../readers';
import { child, children, text, type XEl } from '../xml';
import type { BuildResult, Json, MessageHandler } from './types';
import { buildStatusTx, hasTxRefs, originalGroupXml, parseOriginalGroup, parseStatusTx, statusTxInputs } from './status';

function parse(root: XEl): Json {
  const gh = child(root, 'GrpHdr');
  return {
    group_header: compact({
      message_id: text(gh, 'MsgId'),
      creation_date_time: text(gh, 'CreDtTm'),
      instructing_agent: readAgent(child(gh, 'InstgAgt')),
      instructed_agent: readAgent(child(gh, 'InstdAgt')),
    }),
    // 0..* from version 10 on, exactly one before: always a list here.
    original_groups: children(root, 'OrgnlGrpInfAndSts').map((g) => parseOriginalGroup(g)!),
    transactions: children(root, 'TxInfAndSts').map(parseStatusTx),
  };
}

function build(input: Json): BuildResult {
  // Top-level `status` with no transaction reference is the group status.
  const groupInput = !hasTxRefs(input) && !input.transactions && input.group_status === undefined && input.status !== undefined
    ? { ...input, group_status: input.status }
    : input;
  const txs = statusTxInputs(input, '');
  if (!txs.length && !groupInput.group_status) {
    throw invalid('/status', 'give a status: transactions[], an original transaction reference with status, or group_status');
  }
  const messageId = str(input.message_id, '/message_id') ?? newReference();
  const instructing = obj<Agent>(input.instructing_agent, '/instructing_agent');
  const instructed = obj<Agent>(input.instructed_agent, '/instructed_agent');
  return {
    document: {
      FIToFIPmtStsRpt: {
        GrpHdr: {
          MsgId: messageId,
          CreDtTm: str(input.creation_date_time, '/creation_date_time') ?? nowDateTime(),
          InstgAgt: agentXml(instructing),
          InstdAgt: agentXml(instructed),
        },
        OrgnlGrpInfAndSts: originalGroupXml(groupInput, '', 'pacs.008.001.08', true),
        TxInfAndSts: txs.map(({ tx, pointer }) => buildStatusTx(tx, pointer, 'pacs')),
      },
    },
    summary: {
      message_id: messageId,
      original_message_id: input.original_message_id as string,
      number_of_transactions: String(txs.length),
    },
    header: { from: { agent: instructing }, to: { agent: instructed } },
  };
}

export const pacs002: MessageHandler = { parse, build };
