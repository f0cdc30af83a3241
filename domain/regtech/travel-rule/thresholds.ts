/**
 * Travel Rule thresholds by jurisdiction: one dated table (data, not code paths), each row with
 * its source. Full originator and beneficiary identification is required when the transfer's
 * value is AT OR ABOVE the threshold ("equal to or greater than", as the US rule 31 CFR
 * 1010.410(f) words it; FATF INR.16 sets a de minimis of USD/EUR 1,000 below which less is
 * required). A zero threshold means every transfer. Operators override rows with
 * TRAVEL_RULE_THRESHOLDS (JSON array of rows). docs/regtech.md discusses where sources differ.
 *
 * Thresholds in currencies the platform does not price (CAD, SGD) convert to USD with the
 * reference rate on the row (usd_per_unit, dated); the others with the platform's own rates.
 */
import { DomainError } from '../../platform/errors';

export interface ThresholdRow {
  /** ISO 3166 alpha-2, or 'EU', or 'FATF' for the default. */
  jurisdiction: string;
  name: string;
  currency: string;
  amount: string;
  /** Self-hosted wallets: ownership must be verified above this amount (EU TFR), in `currency`. */
  selfHostedVerificationAbove?: string;
  /** Reference USD value of one unit of `currency` when the platform has no rate for it. */
  usdPerUnit?: { rate: string; asOf: string; source: string };
  regulations: string[];
  source: string;
  asOf: string;
}

export const TRAVEL_RULE_THRESHOLDS: readonly ThresholdRow[] = [
  {
    jurisdiction: 'FATF', name: 'FATF default', currency: 'USD', amount: '1000',
    regulations: ['FATF Recommendation 16 (INR.16)'], source: 'FATF Recommendations, INR.16 para. 5 (de minimis USD/EUR 1,000)', asOf: '2019-06-21',
  },
  {
    jurisdiction: 'EU', name: 'European Union', currency: 'EUR', amount: '0', selfHostedVerificationAbove: '1000',
    regulations: ['Regulation (EU) 2023/1113 (Transfer of Funds Regulation)', 'Directive (EU) 2015/849 (AMLD)'],
    source: 'TFR 2023/1113 Art. 14 (no threshold between crypto-asset service providers), Art. 14(5) (self-hosted address above EUR 1,000)', asOf: '2024-12-30',
  },
  {
    jurisdiction: 'US', name: 'United States', currency: 'USD', amount: '3000',
    regulations: ['31 CFR 1010.410(f) (Travel Rule)', 'Bank Secrecy Act'], source: '31 CFR 1010.410(e)-(f): transmittals of funds of USD 3,000 or more; FinCEN guidance FIN-2019-G001 applies it to CVC', asOf: '2019-05-09',
  },
  {
    jurisdiction: 'CA', name: 'Canada', currency: 'CAD', amount: '1000', usdPerUnit: { rate: '0.72', asOf: '2026-11-21', source: 'platform reference rate (setting)' },
    regulations: ['PCMLTFR SOR/2002-184 s. 124.1'], source: 'FINTRAC: travel rule for virtual currency transfers of CAD 1,000 or more (2021-06-01)', asOf: '2021-06-01',
  },
  {
    jurisdiction: 'SG', name: 'Singapore', currency: 'SGD', amount: '1500', usdPerUnit: { rate: '0.75', asOf: '2026-11-21', source: 'platform reference rate (setting)' },
    regulations: ['MAS Notice PSN02 para. 13'], source: 'MAS Notice PSN02 (DPT services): value transfers of SGD 1,500 or more', asOf: '2020-01-28',
  },
  {
    jurisdiction: 'CH', name: 'Switzerland', currency: 'CHF', amount: '0',
    regulations: ['AMLO-FINMA Art. 10', 'FINMA Guidance 02/2019'], source: 'FINMA Guidance 02/2019: the travel rule applies to VASP transfers without a threshold (sources differ on a CHF 1,000 value; the stricter is used)', asOf: '2019-08-26',
  },
  {
    jurisdiction: 'GB', name: 'United Kingdom', currency: 'EUR', amount: '1000',
    regulations: ['Money Laundering Regulations 2017, Part 7A (as amended 2022)'], source: 'MLRs 2017 reg. 64C-64F: full information for transfers of EUR 1,000 or more (the regulation states the threshold in euro)', asOf: '2023-09-01',
  },
];

/** The rows in force: the table, with any operator override (TRAVEL_RULE_THRESHOLDS) replacing a jurisdiction's row. */
export function thresholdRows(settings: { TRAVEL_RULE_THRESHOLDS?: string } = process.env): ThresholdRow[] {
  const rows = new Map(TRAVEL_RULE_THRESHOLDS.map((r) => [r.jurisdiction, r]));
  if (settings.TRAVEL_RULE_THRESHOLDS) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(settings.TRAVEL_RULE_THRESHOLDS);
    } catch {
      throw new Error('TRAVEL_RULE_THRESHOLDS must be a JSON array of threshold rows');
    }
    for (const r of parsed as ThresholdRow[]) rows.set(r.jurisdiction.toUpperCase(), { ...r, jurisdiction: r.jurisdiction.toUpperCase() });
  }
  return [...rows.values()];
}

/** The row for a jurisdiction; 'FATF' (or 'INTL') is the default row. Unknown: UNSUPPORTED_JURISDICTION. */
export function thresholdFor(jurisdiction: string): ThresholdRow {
  const code = jurisdiction.trim().toUpperCase() === 'INTL' ? 'FATF' : jurisdiction.trim().toUpperCase();
  const row = thresholdRows().find((r) => r.jurisdiction === code);
  if (!row) {
    throw new DomainError('UNSUPPORTED_JURISDICTION', `No Travel Rule threshold is configured for ${jurisdiction.slice(0, 20)}; supported: ${thresholdRows().map((r) => r.jurisdiction).join(', ')}`, '/jurisdiction');
  }
  return row;
}
