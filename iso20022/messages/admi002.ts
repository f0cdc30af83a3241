import { compact, invalid, nowDateTime, obj, str } from '../common';
import { child, text, type XEl } from '../xml';
import type { BuildResult, Json, MessageHandler } from './types';

/** admi.002 has no message identification of its own: the rejected message's reference and the reason are the content. */
function parse(root: XEl): Json {
  const r = child(root, 'Rsn');
  return {
    related_reference: text(root, 'RltdRef', 'Ref'),
    reason: compact({
      rejecting_party_reason: text(r, 'RjctgPtyRsn'),
      rejection_date_time: text(r, 'RjctnDtTm'),
      error_location: text(r, 'ErrLctn'),
      description: text(r, 'RsnDesc'),
      additional_data: text(r, 'AddtlData'),
    }),
  };
}

interface ReasonInput {
  rejecting_party_reason?: string;
  rejection_date_time?: string;
  error_location?: string;
  description?: string;
  additional_data?: string;
}

function build(input: Json): BuildResult {
  const ref = str(input.related_reference, '/related_reference', { required: true })!;
  // `reason` is either the parse-output object or just the rejecting party's reason code/text.
  const reason: ReasonInput =
    typeof input.reason === 'string' ? { rejecting_party_reason: input.reason } : (obj<ReasonInput>(input.reason, '/reason') ?? {});
  const rejecting = str(reason.rejecting_party_reason ?? input.reason_code, '/reason/rejecting_party_reason');
  if (!rejecting) throw invalid('/reason', 'reason (the rejecting party reason) is required');
  return {
    document: {
      'admi.002.001.01': {
        RltdRef: { Ref: ref },
        Rsn: {
          RjctgPtyRsn: rejecting,
          RjctnDtTm: reason.rejection_date_time ?? nowDateTime(),
          ErrLctn: reason.error_location ?? str(input.error_location, '/error_location'),
          RsnDesc: reason.description ?? str(input.reason_description, '/reason_description'),
          AddtlData: reason.additional_data,
        },
      },
    },
    summary: { related_reference: ref },
    header: {},
  };
}

export const admi002: MessageHandler = { parse, build };
