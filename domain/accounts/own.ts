/**
 * An account as its owner reaches it: the caller's account in the caller's environment, or
 * NOT_FOUND (another user's or environment's account does not exist for them), and what hangs
 * off it. The REST routes (api/routes/accounts) call these.
 */
import type { Principal } from '../auth/principal';
import { getPool } from '../db/pool';
import { listTransactions, type Transaction, type TransactionQuery } from '../ledger/transactions';
import { DomainError } from '../platform/errors';
import { listAccountTransfers, type Transfer } from '../transfers';
import { getAccount, getBalances, type Account, type AccountBalances } from './index';

export async function getOwnAccount(p: Principal, id: string): Promise<Account> {
  const account = await getAccount(p.userId, p.environment, id);
  if (!account) throw new DomainError('NOT_FOUND', 'Account not found');
  return account;
}

export async function getOwnBalances(p: Principal, id: string): Promise<AccountBalances> {
  const account = await getOwnAccount(p, id);
  return getBalances(account.id);
}

/** Transactions (postings) of one of the caller's accounts. */
export async function listOwnAccountTransactions(
  p: Principal,
  id: string,
  q: Omit<TransactionQuery, 'accountId' | 'userId' | 'environment'>,
): Promise<{ items: Transaction[]; total: number }> {
  const account = await getOwnAccount(p, id);
  return listTransactions({ ...q, accountId: account.id, userId: p.userId, environment: p.environment });
}

/** Transfers into or out of one of the caller's accounts, newest first. */
export async function listOwnAccountTransfers(p: Principal, id: string, page: { offset: number; limit: number }): Promise<{ items: Transfer[]; total: number }> {
  const account = await getOwnAccount(p, id);
  return listAccountTransfers(account.id, page);
}

/**
 * The identifiers the platform issued for the caller's accounts, by account id: the IBAN every
 * account gets at its creation (account_ibans, DE under bank code 00000000 in this deployment),
 * which a payer needs to send a SEPA transfer and a TPP names in a consent. The platform issues
 * no US routing/account numbers. Only the caller's own accounts in its environment: another
 * customer's identifiers are never read here.
 */
export interface AccountIdentifiers {
  iban: string;
}

export async function ownAccountIdentifiers(p: Pick<Principal, 'userId' | 'environment'>, ids: readonly string[]): Promise<Map<string, AccountIdentifiers>> {
  if (ids.length === 0) return new Map();
  const { rows } = await getPool().query<{ account_id: string; iban: string }>(
    `SELECT i.account_id, i.iban FROM account_ibans i JOIN accounts a ON a.id = i.account_id
      WHERE i.account_id = ANY($1::text[]) AND a.user_id = $2 AND a.environment = $3`,
    [[...ids], p.userId, p.environment],
  );
  return new Map(rows.map((r) => [r.account_id, { iban: r.iban }]));
}
