/** Building the shared ISO 20022 blocks (parties, addresses, agents, accounts, remittance, reasons) from snake_case JSON. */
import type { XObj } from './build';
import { list, str, type Account, type Agent, type GenericId, type Party, type PartyIdentifiers, type PaymentType, type PostalAddress, type Reason, type Remittance } from './common';

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
