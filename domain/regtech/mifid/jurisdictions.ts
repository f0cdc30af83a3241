/**
 * The member states whose competent authority may receive a MiFIR transaction report: the 27 EU
 * member states and the three EEA EFTA states (MiFID II/MiFIR apply in the EEA). A report names
 * one by its ISO 3166 code; any other code is refused with UNSUPPORTED_JURISDICTION.
 */
import { DomainError } from '../../platform/errors';

export interface CompetentAuthority {
  country: string;
  name: string;
}

const AUTHORITIES: Record<string, string> = {
  AT: 'Finanzmarktaufsicht (FMA)',
  BE: 'Financial Services and Markets Authority (FSMA)',
  BG: 'Financial Supervision Commission (FSC)',
  HR: 'Croatian Financial Services Supervisory Agency (HANFA)',
  CY: 'Cyprus Securities and Exchange Commission (CySEC)',
  CZ: 'Czech National Bank (CNB)',
  DK: 'Finanstilsynet (Danish FSA)',
  EE: 'Finantsinspektsioon',
  FI: 'Finanssivalvonta (FIN-FSA)',
  FR: 'Autorité des marchés financiers (AMF)',
  DE: 'Bundesanstalt für Finanzdienstleistungsaufsicht (BaFin)',
  GR: 'Hellenic Capital Market Commission (HCMC)',
  HU: 'Magyar Nemzeti Bank (MNB)',
  IE: 'Central Bank of Ireland',
  IT: 'Commissione Nazionale per le Società e la Borsa (CONSOB)',
  LV: 'Latvijas Banka',
  LT: 'Lietuvos bankas',
  LU: 'Commission de Surveillance du Secteur Financier (CSSF)',
  MT: 'Malta Financial Services Authority (MFSA)',
  NL: 'Autoriteit Financiële Markten (AFM)',
  PL: 'Komisja Nadzoru Finansowego (KNF)',
  PT: 'Comissão do Mercado de Valores Mobiliários (CMVM)',
  RO: 'Autoritatea de Supraveghere Financiară (ASF)',
  SK: 'Národná banka Slovenska (NBS)',
  SI: 'Agencija za trg vrednostnih papirjev (ATVP)',
  ES: 'Comisión Nacional del Mercado de Valores (CNMV)',
  SE: 'Finansinspektionen',
  IS: 'Seðlabanki Íslands (Central Bank of Iceland)',
  LI: 'Finanzmarktaufsicht Liechtenstein (FMA)',
  NO: 'Finanstilsynet (Financial Supervisory Authority of Norway)',
};

export const MIFID_JURISDICTIONS: readonly string[] = Object.keys(AUTHORITIES).sort();

export function competentAuthority(country: string): CompetentAuthority | null {
  const c = country.trim().toUpperCase();
  return Object.hasOwn(AUTHORITIES, c) ? { country: c, name: AUTHORITIES[c] } : null;
}

/** The authority of an EU/EEA member state, else 422 UNSUPPORTED_JURISDICTION on /jurisdiction. */
export function requireJurisdiction(country: string): CompetentAuthority {
  const a = competentAuthority(country);
  if (!a) {
    throw new DomainError(
      'UNSUPPORTED_JURISDICTION',
      `MiFIR transaction reports go to the competent authority of an EU/EEA member state (${MIFID_JURISDICTIONS.join(', ')}); got ${country.slice(0, 10)}`,
      '/jurisdiction',
    );
  }
  return a;
}
