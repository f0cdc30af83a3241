/**
 * The spec's flat party fields as IVMS101 (2023) data, validated with the `ivms101` library.
 * A party is a natural person unless `type: 'legal'`; a natural person's name splits at the last
 * space (secondary identifier = given names, primary = family name), as IVMS101's
 * LEGL name identifier expects. The originating VASP is this platform; the beneficiary VASP is
 * the institution named for the beneficiary (absent for a self-hosted wallet).
 */
import { validate, type IVMS101 } from 'ivms101';
import { DomainError } from '../../platform/errors';

export interface PartyInput {
  name: string;
  account_number?: string;
  /** /regtech/travel-rule/transfers spells the account `account`. */
  account?: string;
  institution_name?: string;
  institution_country?: string;
  /** /regtech/travel-rule/transfers names the beneficiary's VASP by id. */
  vasp_id?: string;
  type?: 'natural' | 'legal';
}

export const PLATFORM_VASP_NAME = 'Multi-Asset Banking Platform';

/** IVMS101 puts the account numbers beside the persons (originator.accountNumber, beneficiary.accountNumber). */
function accounts(p: PartyInput): { accountNumber?: string[] } {
  const account = p.account_number ?? p.account;
  return account ? { accountNumber: [account] } : {};
}

function person(p: PartyInput, customerIdentification?: string) {
  if (p.type === 'legal') {
    return {
      legalPerson: { name: { nameIdentifier: [{ legalPersonName: p.name.trim(), legalPersonNameIdentifierType: 'LEGL' as const }] }, ...(customerIdentification ? { customerIdentification } : {}) },
    };
  }
  const words = p.name.trim().split(/\s+/);
  const primary = words.length > 1 ? words[words.length - 1] : words[0];
  const secondary = words.length > 1 ? words.slice(0, -1).join(' ') : undefined;
  return {
    naturalPerson: {
      name: { nameIdentifier: [{ primaryIdentifier: primary, ...(secondary ? { secondaryIdentifier: secondary } : {}), naturalPersonNameIdentifierType: 'LEGL' as const }] },
      ...(customerIdentification ? { customerIdentification } : {}),
    },
  };
}

// ivms101 2.0.0 also applies C4 to VASPs: the VASP's own identifier (vasp_id, else its name) is
// given as its customerIdentification.
function vasp(name: string, id: string, country?: string) {
  return {
    legalPerson: {
      name: { nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: 'LEGL' as const }] },
      customerIdentification: id,
      ...(country ? { countryOfRegistration: country.toUpperCase() } : {}),
    },
  };
}

/**
 * The parties as a validated IVMS101 (2023) payload; what IVMS101 refuses is a 422 naming the field.
 * The originator is this platform's customer, identified by their customer id (IVMS101 constraint C1
 * asks an originating natural person for an address, a national or customer identification, or a
 * date and place of birth).
 */
export function toIvms101(originator: PartyInput, beneficiary: PartyInput, originatorCustomerId: string): IVMS101 {
  const beneficiaryVasp = beneficiary.institution_name ?? beneficiary.vasp_id;
  const data = {
    originator: { originatorPerson: [person(originator, originatorCustomerId)], ...accounts(originator) },
    // ivms101 2.0.0 applies constraint C1 to every natural person, beneficiaries included: the
    // beneficiary's account at their VASP identifies them as that VASP's customer.
    beneficiary: { beneficiaryPerson: [person(beneficiary, beneficiary.account_number ?? beneficiary.account)], ...accounts(beneficiary) },
    originatingVASP: vasp(originator.institution_name ?? PLATFORM_VASP_NAME, originator.institution_name ?? PLATFORM_VASP_NAME, originator.institution_country),
    ...(beneficiaryVasp ? { beneficiaryVASP: vasp(beneficiaryVasp, beneficiary.vasp_id ?? beneficiaryVasp, beneficiary.institution_country) } : {}),
    payloadMetadata: { payloadVersion: '101.2023' },
  };
  try {
    return validate(data) as IVMS101;
  } catch (err) {
    const issue = (err as { issues?: Array<{ path: Array<string | number>; message: string }> }).issues?.[0];
    const where = issue?.path ?? [];
    const party = where[0] === 'beneficiary' || where[0] === 'beneficiaryVASP' ? 'beneficiary' : 'originator';
    const field = /\bC1\b/.test(issue?.message ?? '')
      ? 'account_number'
      : where.includes('countryOfRegistration') ? 'institution_country' : where.includes('accountNumber') ? 'account_number' : where.some((x) => String(x).toLowerCase().includes('vasp')) ? 'institution_name' : 'name';
    throw new DomainError('INVALID_IVMS101', `IVMS101 refuses the ${party}'s ${field}: ${issue?.message ?? (err as Error).message} (at ${where.join('.')})`, `/${party}/${field}`);
  }
}
