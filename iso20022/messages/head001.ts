/** head.001 Business Application Header (AppHdr): parse and build. */
import { compact, invalid, newReference, nowDateTime, obj, str, type Agent, type Party } from '../common';
import { partyXml, agentXml } from '../builders';
import { readAgent, readParty } from '../readers';
import type { XObj } from '../build';
import { child, children, text, type XEl } from '../xml';
import type { HeaderParties, Json } from './types';

/** Fr/To are a choice of an organisation (OrgId) or a financial institution (FIId). */
function parseHdrParty(el: XEl | undefined): Json | undefined {
  if (!el) return undefined;
  const fi = child(el, 'FIId');
  if (fi) return compact({ financial_institution: readAgent(fi) });
  return readParty(child(el, 'OrgId')) as Json | undefined;
}

export function parseAppHdr(el: XEl, version: string): Json {
  return compact({
    version,
    from: parseHdrParty(child(el, 'Fr')),
    to: parseHdrParty(child(el, 'To')),
    business_message_id: text(el, 'BizMsgIdr'),
    message_definition_id: text(el, 'MsgDefIdr'),
    business_service: text(el, 'BizSvc'),
    creation_date: text(el, 'CreDt'),
    business_processing_date: text(el, 'BizPrcgDt'),
    copy_duplicate: text(el, 'CpyDplct'),
    possible_duplicate: text(el, 'PssblDplct') === undefined ? undefined : text(el, 'PssblDplct') === 'true',
    priority: text(el, 'Prty'),
    related: children(el, 'Rltd').length ? children(el, 'Rltd').map((r) =>
      compact({
        business_message_id: text(r, 'BizMsgIdr'),
        message_definition_id: text(r, 'MsgDefIdr'),
        creation_date: text(r, 'CreDt'),
      }),
    ) : undefined,
  })!;
}

/** Caller-supplied header fields (`business_application_header: { ... }`). */
export interface AppHdrInput {
  version?: string;
  from?: Party & Agent;
  to?: Party & Agent;
  business_message_id?: string;
  business_service?: string;
  priority?: string;
  copy_duplicate?: string;
  possible_duplicate?: boolean;
}

type HdrSide = (Party & Agent) | { agent?: Agent; party?: Party } | undefined;

function hdrPartyXml(side: HdrSide, pointer: string): XObj {
  const s = (side ?? {}) as Record<string, unknown>;
  const agent = (s.agent as Agent | undefined) ?? (s.financial_institution as Agent | undefined) ??
    (s.bic || s.clearing_member_id ? (s as Agent) : undefined);
  if (agent && (agent.bic || agent.clearing_member_id || agent.name)) return { FIId: agentXml(agent) };
  const party = (s.party as Party | undefined) ?? (s.name || s.identifiers ? (s as Party) : undefined);
  if (party && (party.name || party.identifiers)) return { OrgId: partyXml(party) };
  throw invalid(pointer, `${pointer} is needed for the business application header: give { bic } or { name }`);
}

export function buildAppHdr(input: AppHdrInput, derived: HeaderParties, messageVersion: string, documentId: string | undefined): XObj {
  const p = '/business_application_header';
  return {
    Fr: hdrPartyXml(input.from ?? derived.from, `${p}/from`),
    To: hdrPartyXml(input.to ?? derived.to, `${p}/to`),
    // Usual practice: the header reuses the document's message id.
    BizMsgIdr: str(input.business_message_id, `${p}/business_message_id`) ?? documentId ?? newReference(),
    MsgDefIdr: messageVersion,
    BizSvc: str(input.business_service, `${p}/business_service`),
    CreDt: nowDateTime(),
    CpyDplct: input.copy_duplicate,
    PssblDplct: input.possible_duplicate === undefined ? undefined : String(input.possible_duplicate),
    Prty: input.priority,
  };
}

export function appHdrInput(raw: unknown): AppHdrInput | null {
  if (raw === undefined || raw === null || raw === false) return null;
  if (raw === true) return {};
  return obj<AppHdrInput>(raw, '/business_application_header')!;
}
