/** The ledger lines of a transfer. */
import { ensureCustomerLedgerAccount } from '../accounts';
import type { Queryable } from '../db/pool';
import type { LedgerService, LineInput } from '../ledger';
import { isZeroAmount } from '../money/amount';
import type { Transfer } from './records';

/** Lines of a transfer entry: the sender pays amount and fee, the receiver gets the amount. */
export async function buildTransferLines(
  ledger: Pick<LedgerService, 'systemAccount'>,
  t: Pick<Transfer, 'id' | 'environment' | 'fromAccountId' | 'toAccountId' | 'assetCode' | 'amount' | 'feeAmount'>,
  client: Queryable,
  known: { from?: string | null; to?: string | null } = {},
): Promise<LineInput[]> {
  // Sequential on purpose: one client runs one query at a time anyway.
  const fromLa = known.from ?? (await ensureCustomerLedgerAccount(t.fromAccountId, t.assetCode, client));
  const toLa = known.to ?? (await ensureCustomerLedgerAccount(t.toAccountId, t.assetCode, client));
  const lines: LineInput[] = [
    { accountId: fromLa, direction: 'debit', amount: t.amount, transactionType: 'transfer_out' },
    { accountId: toLa, direction: 'credit', amount: t.amount, transactionType: 'transfer_in' },
  ];
  if (!isZeroAmount(t.feeAmount)) {
    // Fee postings are spread over the fee account's shards by sender: one sender's transfers
    // queue on its own account's lock anyway, and different senders rarely share a shard.
    const feeLa = await ledger.systemAccount(t.environment, t.assetCode, 'fee_revenue', t.fromAccountId, client);
    lines.push(
      { accountId: fromLa, direction: 'debit', amount: t.feeAmount, transactionType: 'fee' },
      { accountId: feeLa, direction: 'credit', amount: t.feeAmount },
    );
  }
  return lines;
}
