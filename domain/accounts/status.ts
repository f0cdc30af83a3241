import { DomainError } from '../platform/errors';

/** The states of a customer account (accounts.status and ledger_accounts.status). */
export type AccountStatus = 'active' | 'frozen' | 'closed';

/**
 * Whether an account in `status` may take part in a transfer on `side`, and the refusal if not: a
 * frozen or closed source may not pay, a closed destination may not receive, a frozen one still
 * may. The same answer whoever finds it: the API before a transfer (domain/transfers), the
 * transfer workflow's validate step (activities/transfers), and a ledger refusal mapped back to a
 * side. The ledger decides the same rule under its row locks with ledger__rule_status
 * (prisma/sql/functions/ledger__rule_status.sql).
 */
export function statusRefusal(side: 'from' | 'to', status: string): DomainError | null {
  if (side === 'from' && status === 'frozen') return new DomainError('ACCOUNT_FROZEN', 'The source account is frozen', '/from_account');
  if (side === 'from' && status === 'closed') return new DomainError('ACCOUNT_CLOSED', 'The source account is closed', '/from_account');
  if (side === 'to' && status === 'closed') return new DomainError('DESTINATION_CLOSED', 'The destination account is closed', '/to_account');
  return null;
}
