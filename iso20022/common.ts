/**
 * Shared mapping between ISO 20022 building blocks and snake_case JSON:
 * parties, postal addresses, identifiers, accounts, agents, amounts,
 * remittance information, status/cancellation reasons. Every message type
 * uses these, so a field has the same name in every type and version.
 */
import { randomUUID } from 'node:crypto';
import Decimal from 'decimal.js';
import { ApiError } from '../api/errors';
import { isCurrency, minorUnits } from './currencies';
import type { XObj } from './build';
import { child, children, text, texts, type XEl } from './xml';

// --- JSON shapes -------------------------------------------------------------

export interface PostalAddress {
  address_type?: string;
  department?: string;
  sub_department?: string;
  street_name?: string;
  building_number?: string;
  building_name?: string;
  floor?: string;
  post_box?: string;
  room?: string;
  post_code?: string;
  town_name?: string;
  town_location_name?: string;
  district_name?: string;
  country_subdivision?: string;
  country?: string;
  address_lines?: string[];
}

export interface GenericId {
  id: string;
  scheme_code?: string;
  scheme_proprietary?: string;
  issuer?: string;
}

export interface PartyIdentifiers {
  organisation?: { any_bic?: string; lei?: string; other?: GenericId[] };
  private?: {
    birth_date?: string;
    province_of_birth?: string;
    city_of_birth?: string;
    country_of_birth?: string;
    other?: GenericId[];
  };
}

export interface Contact {
  name?: string;
  phone?: string;
  mobile?: string;
  email?: string;
}

export interface Agent {
  bic?: string;
  clearing_system_code?: string;
  clearing_system_proprietary?: string;
  clearing_member_id?: string;
  lei?: string;
  name?: string;
  postal_address?: PostalAddress;
  other_id?: string;
  branch_id?: string;
}

export interface Party {
  name?: string;
  postal_address?: PostalAddress;
  identifiers?: PartyIdentifiers;
  country_of_residence?: string;
  contact?: Contact;
  /** Set instead of the fields above when the party is itself a financial institution (Party40Choice/Agt). */
  financial_institution?: Agent;
}

export interface Account {
  iban?: string;
  other?: GenericId;
  currency?: string;
  name?: string;
  type?: string;
}

/** A party together with its account and its agent (debtor + DbtrAcct + DbtrAgt). */
export interface PartyWithAccount extends Party {
  account?: Account;
  agent?: Agent;
}

export interface StructuredRemittance {
  creditor_reference?: string;
  creditor_reference_type?: string;
  referred_documents?: Array<{ number?: string; type?: string; date?: string }>;
  additional_information?: string[];
}

export interface Remittance {
  unstructured?: string[];
  structured?: StructuredRemittance[];
}

export interface Reason {
  code?: string;
  proprietary?: string;
  additional_information?: string[];
  originator?: Party;
}

export interface PaymentType {
  instruction_priority?: string;
  clearing_channel?: string;
  service_level?: string;
  local_instrument?: string;
  sequence_type?: string;
  category_purpose?: string;
}

export interface Money {
  amount: string;
  currency: string;
}

// --- small utilities -------------------------------------------------------------

/**
 * Drops undefined, empty strings and empty objects; returns undefined when nothing is left.
 * Arrays stay even when empty, so repeating blocks (transactions, entries) are always lists.
 */
export function compact<T extends object>(obj: T): T | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === null || v === '') continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return Object.keys(out).length ? (out as T) : undefined;
}

/** Code-or-proprietary choice (`<Cd>`/`<Prtry>`), or plain text in older versions. */
export function code(el: XEl | undefined): string | undefined {
  if (!el) return undefined;
  return text(el, 'Cd') ?? text(el, 'Prtry') ?? text(el);
}

/** Date-or-datetime choice (`<Dt>`/`<DtTm>`), or a plain ISODate in older versions. */
export function dateChoice(el: XEl | undefined): string | undefined {
  if (!el) return undefined;
  return text(el, 'Dt') ?? text(el, 'DtTm') ?? text(el);
}

export function invalid(pointer: string, detail: string, code = 'VALIDATION_ERROR'): ApiError {
  return new ApiError(422, code, detail, { source: { pointer } });
}

/** 32 hex characters: unique, and fits every Max35Text reference. */
export function newReference(): string {
  return randomUUID().replace(/-/g, '');
}

export function newUetr(): string {
  return randomUUID();
}

export function nowDateTime(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

export function str(value: unknown, pointer: string, opts: { required?: boolean } = {}): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (opts.required) throw invalid(pointer, `${pointer || 'value'} is required`);
    return undefined;
  }
  if (typeof value !== 'string') throw invalid(pointer, `${pointer} must be a string`);
  return value;
}

export function obj<T = Record<string, unknown>>(value: unknown, pointer: string, opts: { required?: boolean } = {}): T | undefined {
  if (value === undefined || value === null) {
    if (opts.required) throw invalid(pointer, `${pointer} is required`);
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(pointer, `${pointer} must be an object`);
  return value as T;
}

export function list<T = Record<string, unknown>>(value: unknown, pointer: string): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid(pointer, `${pointer} must be an array`);
  return value as T[];
}

export function currencyCode(value: unknown, pointer: string): string {
  const ccy = str(value, pointer, { required: true })!;
  if (!isCurrency(ccy)) throw invalid(pointer, `"${ccy}" is not an ISO 4217 currency code`, 'INVALID_CURRENCY');
  return ccy;
}

/**
 * Formats a decimal-string amount with the currency's ISO 4217 decimals
 * ("5" USD → "5.00", "1000" JPY → "1000"); more significant decimals than the
 * currency has is an error rather than a silent rounding.
 */
export function formatAmount(value: unknown, currency: string, pointer: string): string {
  if (typeof value !== 'string') throw invalid(pointer, `${pointer} must be a decimal string such as "12.34"`, 'INVALID_AMOUNT');
  if (!/^\d{1,18}(\.\d{1,18})?$/.test(value)) {
    throw invalid(pointer, `"${value}" is not a non-negative decimal amount`, 'INVALID_AMOUNT');
  }
  const d = new Decimal(value);
  const units = minorUnits(currency);
  if (units === null || units === undefined) return d.toFixed();
  if (d.decimalPlaces() > units) {
    throw invalid(pointer, `${currency} amounts have ${units} decimal(s); "${value}" has more`, 'INVALID_AMOUNT');
  }
  return d.toFixed(units);
}

export function amountXml(value: unknown, currency: unknown, pointer: string, currencyPointer: string): XObj {
  const ccy = currencyCode(currency, currencyPointer);
  return { '#': formatAmount(value, ccy, pointer), '@Ccy': ccy };
}

// --- readers (XML → JSON) ---------------------------------------------------------

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

// --- builders (JSON → XML-shaped objects) -------------------------------------------

export function postalAddressXml(a: PostalAddress | undefined): XObj | undefined {
  if (!a) return undefined;
  return {
    AdrTp: a.address_type,
    Dept: a.department,
    SubDept: a.sub_department,
    StrtNm: a.street_name,
    BldgNb: a.building_number,
    BldgNm: a.building_name,
    Flr: a.floor,
    PstBx: a.post_box,
    Room: a.room,
    PstCd: a.post_code,
    TwnNm: a.town_name,
    TwnLctnNm: a.town_location_name,
    DstrctNm: a.district_name,
    CtrySubDvsn: a.country_subdivision,
    Ctry: a.country,
    AdrLine: a.address_lines,
  };
}

function genericIdXml(g: GenericId): XObj {
  return {
    Id: g.id,
    SchmeNm: g.scheme_code ? { Cd: g.scheme_code } : g.scheme_proprietary ? { Prtry: g.scheme_proprietary } : undefined,
    Issr: g.issuer,
  };
}

export function identifiersXml(ids: PartyIdentifiers | undefined): XObj | undefined {
  if (!ids) return undefined;
  if (ids.organisation) {
    const o = ids.organisation;
    return { OrgId: { AnyBIC: o.any_bic, LEI: o.lei, Othr: o.other?.map(genericIdXml) } };
  }
  if (ids.private) {
    const p = ids.private;
    return {
      PrvtId: {
        DtAndPlcOfBirth: p.birth_date
          ? { BirthDt: p.birth_date, PrvcOfBirth: p.province_of_birth, CityOfBirth: p.city_of_birth, CtryOfBirth: p.country_of_birth }
          : undefined,
        Othr: p.other?.map(genericIdXml),
      },
    };
  }
  return undefined;
}

export function agentXml(a: Agent | undefined): XObj | undefined {
  if (!a) return undefined;
  const clr =
    a.clearing_member_id !== undefined
      ? {
          ClrSysId: a.clearing_system_code ? { Cd: a.clearing_system_code } : a.clearing_system_proprietary ? { Prtry: a.clearing_system_proprietary } : undefined,
          MmbId: a.clearing_member_id,
        }
      : undefined;
  return {
    FinInstnId: {
      BICFI: a.bic,
      ClrSysMmbId: clr,
      LEI: a.lei,
      Nm: a.name,
      PstlAdr: postalAddressXml(a.postal_address),
      Othr: a.other_id ? { Id: a.other_id } : undefined,
    },
    BrnchId: a.branch_id ? { Id: a.branch_id } : undefined,
  };
}

/** Agent that must be present but is unknown: the "NOTPROVIDED" convention of EPC/ISO guidelines. */
export function agentOrNotProvided(a: Agent | undefined): XObj {
  const has = a && (a.bic || a.clearing_member_id || a.name || a.lei || a.other_id);
  return has ? agentXml(a)! : { FinInstnId: { Othr: { Id: 'NOTPROVIDED' } } };
}

export function partyXml(p: Party | undefined): XObj | undefined {
  if (!p) return undefined;
  if (p.financial_institution) return { Agt: agentXml(p.financial_institution) };
  const c = p.contact;
  return {
    Nm: p.name,
    PstlAdr: postalAddressXml(p.postal_address),
    Id: identifiersXml(p.identifiers),
    CtryOfRes: p.country_of_residence,
    CtctDtls: c ? { Nm: c.name, PhneNb: c.phone, MobNb: c.mobile, EmailAdr: c.email } : undefined,
  };
}

export function accountXml(a: Account | undefined): XObj | undefined {
  if (!a) return undefined;
  const id = a.iban
    ? { IBAN: a.iban.replace(/\s+/g, '').toUpperCase() }
    : a.other
      ? { Othr: genericIdXml(a.other) }
      : undefined;
  return { Id: id, Tp: a.type, Ccy: a.currency, Nm: a.name };
}

export function remittanceXml(r: Remittance | string | undefined): XObj | undefined {
  if (r === undefined) return undefined;
  if (typeof r === 'string') return { Ustrd: r };
  return {
    Ustrd: r.unstructured,
    Strd: r.structured?.map((s) => ({
      RfrdDocInf: s.referred_documents?.map((d) => ({
        Tp: d.type ? { CdOrPrtry: { Cd: d.type } } : undefined,
        Nb: d.number,
        RltdDt: d.date,
      })),
      CdtrRefInf: s.creditor_reference
        ? {
            Tp: s.creditor_reference_type ? { CdOrPrtry: { Cd: s.creditor_reference_type } } : undefined,
            Ref: s.creditor_reference,
          }
        : undefined,
      AddtlRmtInf: s.additional_information,
    })),
  };
}

export function reasonsXml(reasons: Reason[] | undefined): XObj[] | undefined {
  return reasons?.map((r) => ({
    Orgtr: partyXml(r.originator),
    Rsn: r.code ? { Cd: r.code } : r.proprietary ? { Prtry: r.proprietary } : undefined,
    AddtlInf: r.additional_information,
  }));
}

export function paymentTypeXml(p: PaymentType | undefined): XObj | undefined {
  if (!p) return undefined;
  return {
    InstrPrty: p.instruction_priority,
    ClrChanl: p.clearing_channel,
    SvcLvl: p.service_level ? { Cd: p.service_level } : undefined,
    LclInstrm: p.local_instrument ? { Cd: p.local_instrument } : undefined,
    SeqTp: p.sequence_type,
    CtgyPurp: p.category_purpose ? { Cd: p.category_purpose } : undefined,
  };
}

/**
 * Normalises the `reasons` / `reason_code` / `reason_proprietary` / `reason_information`
 * shorthands of generate input into a Reason list.
 */
export function reasonsFromInput(input: Record<string, unknown>, pointer: string): Reason[] | undefined {
  const given = list<Reason>(input.reasons, `${pointer}/reasons`);
  if (given) return given;
  const codeValue = str(input.reason_code, `${pointer}/reason_code`);
  const prtry = str(input.reason_proprietary, `${pointer}/reason_proprietary`);
  const info = input.reason_information;
  if (!codeValue && !prtry && !info) return undefined;
  return [
    {
      code: codeValue,
      proprietary: prtry,
      additional_information: info === undefined ? undefined : Array.isArray(info) ? (info as string[]) : [String(info)],
    },
  ];
}
