/** Wire shapes of the accounts area. */
import { toPublicAccount, type Account, type AccountBalances } from '../../../domain/accounts';
import type { CashMovement } from '../../../domain/cash';
import { presentTransaction } from '../transactions/presenters';

/** The API's account (uuid, name, type, status, metadata, times): the shape account events carry too, so the domain defines it. */
export const presentAccount = (a: Account) => toPublicAccount(a);

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
