/** Reading the shared ISO 20022 building blocks (parties, addresses, agents, accounts, remittance, reasons) into snake_case JSON. */
import { code, compact, type Account, type Agent, type Contact, type GenericId, type Money, type Party, type PartyIdentifiers, type PartyWithAccount, type PaymentType, type PostalAddress, type Reason, type Remittance, type StructuredRemittance } from './common';
import { child, children, text, texts, type XEl } from './xml';

export function readMoney(el: XEl | undefined): Money | undefined {
  if (!el || el.text === '') return undefined;
  return { amount: el.text, currency: el.attrs.Ccy ?? '' };
}

export function readPostalAddress(el: XEl | undefined): PostalAddress | undefined {
  if (!el) return undefined;
  return compact<PostalAddress>({
    address_type: code(child(el, 'AdrTp')),
    department: text(el, 'Dept'),
    sub_department: text(el, 'SubDept'),
    street_name: text(el, 'StrtNm'),
    building_number: text(el, 'BldgNb'),
    building_name: text(el, 'BldgNm'),
    floor: text(el, 'Flr'),
    post_box: text(el, 'PstBx'),
    room: text(el, 'Room'),
    post_code: text(el, 'PstCd'),
    town_name: text(el, 'TwnNm'),
    town_location_name: text(el, 'TwnLctnNm'),
    district_name: text(el, 'DstrctNm'),
    country_subdivision: text(el, 'CtrySubDvsn'),
    country: text(el, 'Ctry'),
    address_lines: texts(el, 'AdrLine'),
  });
}

function readGenericIds(parent: XEl | undefined): GenericId[] | undefined {
  const out = children(parent, 'Othr')
    .map((o) =>
      compact<GenericId>({
        id: text(o, 'Id') ?? '',
        scheme_code: text(o, 'SchmeNm', 'Cd'),
        scheme_proprietary: text(o, 'SchmeNm', 'Prtry'),
        issuer: text(o, 'Issr'),
      }),
    )
    .filter((x): x is GenericId => !!x);
  return out.length ? out : undefined;
}

export function readIdentifiers(el: XEl | undefined): PartyIdentifiers | undefined {
  if (!el) return undefined;
  const org = child(el, 'OrgId');
  const prv = child(el, 'PrvtId');
  return compact<PartyIdentifiers>({
    organisation: org
      ? compact({ any_bic: text(org, 'AnyBIC') ?? text(org, 'BICOrBEI'), lei: text(org, 'LEI'), other: readGenericIds(org) })
      : undefined,
    private: prv
      ? compact({
          birth_date: text(prv, 'DtAndPlcOfBirth', 'BirthDt'),
          province_of_birth: text(prv, 'DtAndPlcOfBirth', 'PrvcOfBirth'),
          city_of_birth: text(prv, 'DtAndPlcOfBirth', 'CityOfBirth'),
          country_of_birth: text(prv, 'DtAndPlcOfBirth', 'CtryOfBirth'),
          other: readGenericIds(prv),
        })
      : undefined,
  });
}

export function readAgent(el: XEl | undefined): Agent | undefined {
  if (!el) return undefined;
  const fi = child(el, 'FinInstnId') ?? el;
  return compact<Agent>({
    bic: text(fi, 'BICFI') ?? text(fi, 'BIC'),
    clearing_system_code: text(fi, 'ClrSysMmbId', 'ClrSysId', 'Cd'),
    clearing_system_proprietary: text(fi, 'ClrSysMmbId', 'ClrSysId', 'Prtry'),
    clearing_member_id: text(fi, 'ClrSysMmbId', 'MmbId'),
    lei: text(fi, 'LEI'),
    name: text(fi, 'Nm'),
    postal_address: readPostalAddress(child(fi, 'PstlAdr')),
    other_id: text(fi, 'Othr', 'Id'),
    branch_id: text(el, 'BrnchId', 'Id'),
  });
}

export function readParty(el: XEl | undefined): Party | undefined {
  if (!el) return undefined;
  // Newer versions wrap parties in Party40Choice: <Pty> or, for banks, <Agt>.
  const agt = child(el, 'Agt');
  if (agt && !child(el, 'Nm')) return compact<Party>({ financial_institution: readAgent(agt) });
  const p = child(el, 'Pty') ?? el;
  const ctct = child(p, 'CtctDtls');
  return compact<Party>({
    name: text(p, 'Nm'),
    postal_address: readPostalAddress(child(p, 'PstlAdr')),
    identifiers: readIdentifiers(child(p, 'Id')),
    country_of_residence: text(p, 'CtryOfRes'),
    contact: ctct
      ? compact<Contact>({ name: text(ctct, 'Nm'), phone: text(ctct, 'PhneNb'), mobile: text(ctct, 'MobNb'), email: text(ctct, 'EmailAdr') })
      : undefined,
  });
}

export function readAccount(el: XEl | undefined): Account | undefined {
  if (!el) return undefined;
  const othr = child(el, 'Id', 'Othr');
  return compact<Account>({
    iban: text(el, 'Id', 'IBAN'),
    other: othr
      ? compact<GenericId>({
          id: text(othr, 'Id') ?? '',
          scheme_code: text(othr, 'SchmeNm', 'Cd'),
          scheme_proprietary: text(othr, 'SchmeNm', 'Prtry'),
          issuer: text(othr, 'Issr'),
        })
      : undefined,
    currency: text(el, 'Ccy'),
    name: text(el, 'Nm'),
    type: code(child(el, 'Tp')),
  });
}

/** Reads e.g. Dbtr + DbtrAcct + DbtrAgt under `parent` into one object. */
export function readPartyBlock(
  parent: XEl | undefined,
  partyTag: string,
  accountTag?: string,
  agentTag?: string,
  agentParent: XEl | undefined = parent,
): PartyWithAccount | undefined {
  const party = readParty(child(parent, partyTag));
  return compact<PartyWithAccount>({
    ...(party ?? {}),
    account: accountTag ? readAccount(child(parent, accountTag)) : undefined,
    agent: agentTag ? readAgent(child(agentParent, agentTag)) : undefined,
  });
}

export function readRemittance(el: XEl | undefined): Remittance | undefined {
  if (!el) return undefined;
  const structured = children(el, 'Strd')
    .map((s) => {
      const ref = child(s, 'CdtrRefInf');
      const docs = children(s, 'RfrdDocInf')
        .map((d) => compact({ number: text(d, 'Nb'), type: code(child(d, 'Tp', 'CdOrPrtry')), date: text(d, 'RltdDt') }))
        .filter((d): d is NonNullable<typeof d> => !!d);
      return compact<StructuredRemittance>({
        creditor_reference: text(ref, 'Ref'),
        creditor_reference_type: code(child(ref, 'Tp', 'CdOrPrtry')),
        referred_documents: docs.length ? docs : undefined,
        additional_information: texts(s, 'AddtlRmtInf'),
      });
    })
    .filter((s): s is StructuredRemittance => !!s);
  return compact<Remittance>({ unstructured: texts(el, 'Ustrd'), structured: structured.length ? structured : undefined });
}

export function readReasons(els: XEl[]): Reason[] | undefined {
  const out = els
    .map((r) =>
      compact<Reason>({
        code: text(r, 'Rsn', 'Cd'),
        proprietary: text(r, 'Rsn', 'Prtry'),
        additional_information: texts(r, 'AddtlInf'),
        originator: readParty(child(r, 'Orgtr')),
      }),
    )
    .filter((r): r is Reason => !!r);
  return out.length ? out : undefined;
}

export function readPaymentType(el: XEl | undefined): PaymentType | undefined {
  if (!el) return undefined;
  return compact<PaymentType>({
    instruction_priority: text(el, 'InstrPrty'),
    clearing_channel: text(el, 'ClrChanl'),
    service_level: code(child(el, 'SvcLvl')),
    local_instrument: code(child(el, 'LclInstrm')),
    sequence_type: text(el, 'SeqTp'),
    category_purpose: code(child(el, 'CtgyPurp')),
  });
}
