/**
 * The MiFID II settings a report rests on, checked: the executing and submitting entities' LEIs
 * must pass ISO 17442 (mod 97). A malformed one refuses every report build and submission with
 * 503 MIFID_SETTINGS_INVALID naming the setting (nothing is stored), and stops the worker and
 * `npm start` at start-up (ensureMifidDeadlineSchedule checks them first).
 */
import { loadConfig, type Config } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import { isValidLei } from './identifiers';

export interface MifidSettings {
  xsdDir: string;
  /** RTS 22 field 4: the executing entity. */
  firmLei: string;
  /** RTS 22 field 6: the submitting entity. */
  submittingLei: string;
  /** RTS 22 field 5: whether the executing entity is an investment firm covered by MiFID II. */
  investmentFirm: boolean;
}

export function mifidSettings(cfg: Pick<Config, 'mifidXsdDir' | 'mifidFirmLei' | 'mifidSubmittingLei' | 'mifidInvestmentFirm'> = loadConfig()): MifidSettings {
  for (const [name, value] of [
    ['MIFID_FIRM_LEI', cfg.mifidFirmLei],
    ['MIFID_SUBMITTING_LEI', cfg.mifidSubmittingLei],
  ] as const) {
    if (!isValidLei(value)) {
      throw new DomainError('MIFID_SETTINGS_INVALID', `Setting ${name} must be an ISO 17442 LEI (20 characters, mod 97 check digits); got "${value.slice(0, 40)}"`);
    }
  }
  return { xsdDir: cfg.mifidXsdDir, firmLei: cfg.mifidFirmLei, submittingLei: cfg.mifidSubmittingLei, investmentFirm: cfg.mifidInvestmentFirm };
}
