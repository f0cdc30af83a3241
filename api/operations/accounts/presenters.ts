/** Wire shapes of the accounts area. */
import { toPublicAccount, type Account, type AccountBalances } from '../../../domain/accounts';
import { ownAccountIdentifiers, type AccountIdentifiers } from '../../../domain/accounts/own';
import type { Principal } from '../../../domain/auth/principal';
import type { CashMovement } from '../../../domain/cash';
import { presentTransaction } from '../transactions/presenters';

/**
 * The API's account (uuid, name, type, status, metadata, times): the shape account events carry
 * too, so the domain defines it; to its owner also with `identifiers` (the IBAN).
 */
export const presentAccount = (a: Account, identifiers?: AccountIdentifiers) => ({ ...toPublicAccount(a), ...(identifiers ? { identifiers } : {}) });

/** The owner's accounts with their identifiers (one query for a page); `p` must own them. */
export async function presentOwnAccounts(p: Pick<Principal, 'userId' | 'environment'>, accounts: Account[]) {
  const ids = await ownAccountIdentifiers(p, accounts.map((a) => a.id));
  return accounts.map((a) => presentAccount(a, ids.get(a.id)));
}

export const presentOwnAccount = async (p: Pick<Principal, 'userId' | 'environment'>, a: Account) => (await presentOwnAccounts(p, [a]))[0];

/** Balances are computed in their wire shape (domain/accounts getBalances). */
export const presentBalances = (b: AccountBalances) => b;

/** A deposit or withdrawal: its transaction, entry, and whether it is settled or awaits confirmation. */
export function presentCashMovement(m: CashMovement) {
  return {
    transaction: presentTransaction(m.transaction),
    entry_id: m.entry.id,
    settlement: m.entry.status === 'posted' ? 'settled' : 'awaiting_confirmation',
  };
}
