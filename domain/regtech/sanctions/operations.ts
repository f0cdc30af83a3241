/** What the sanctions routes ask for: screening names, the list's status, an operator's reload. */
import type { Principal } from '../../auth/principal';
import { DomainError } from '../../platform/errors';
import { ensureSanctionsList, sanctionsListStatus, type SanctionsListStatus } from './load';
import { screenNames, type ScreeningResult } from './screen';

export const MAX_NAMES_PER_SCREENING = 100;

export async function screenForCaller(names: string[]): Promise<ScreeningResult[]> {
  if (names.length === 0 || names.length > MAX_NAMES_PER_SCREENING) throw new DomainError('INVALID_INPUT', `Send 1 to ${MAX_NAMES_PER_SCREENING} names`, '/names');
  names.forEach((n, i) => {
    if (n.trim() === '') throw new DomainError('INVALID_INPUT', 'A name must not be blank', `/names/${i}`);
  });
  return screenNames(names);
}

export async function sanctionsStatus(): Promise<SanctionsListStatus> {
  const s = await sanctionsListStatus();
  if (!s) throw new DomainError('SANCTIONS_LIST_UNAVAILABLE', 'No sanctions list is loaded');
  return s;
}

/** An operator reloads the list from its files (even when the version is unchanged). */
export async function reloadSanctionsList(p: Principal): Promise<{ status: SanctionsListStatus; loaded: boolean }> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators reload sanctions lists');
  return ensureSanctionsList({ force: true, loadedBy: p.userId });
}
