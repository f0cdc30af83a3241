import type { Principal } from '../auth/principal';
import type { Entry } from '../ledger';
import { getTransaction, type Transaction } from '../ledger/transactions';
import type { Transfer } from '../transfers';
import { reverseTransaction } from './index';

export interface ReversalResult {
  reversal: Entry;
  original: Entry;
  transfer: Transfer | null;
  /** The reversal's customer-account lines as transactions the caller may see (operators: all). */
  transactions: Transaction[];
}

/** Reverses a transaction (reverseTransaction decides whether the caller may) and lists the reversal's customer transactions. */
export async function reverseTransactionForCaller(
  p: Principal,
  input: { transactionId: string; reason: string; force?: boolean },
): Promise<ReversalResult> {
  const { reversal, original, transfer } = await reverseTransaction(p, input);
  const transactions: Transaction[] = [];
  for (const line of reversal.lines.filter((l) => l.customerAccountId)) {
    const t = await getTransaction({ id: line.id, userId: p.isAdmin ? null : p.userId, environment: p.environment });
    if (t) transactions.push(t);
  }
  return { reversal, original, transfer, transactions };
}
