import type { Principal } from '../auth/principal';
import { getPool, withTransaction } from '../db/pool';
import { LedgerError, getEntry, reverseEntry, type Entry } from '../ledger';
import { getTransaction } from '../ledger/transactions';
import { DomainError } from '../platform/errors';
import { emitTransferEvents, updateTransfer, type Transfer } from '../transfers';

/**
 * Reverses the entry behind a transaction with a new, linked reversing entry. A customer may
 * reverse only what takes money back from their own accounts (e.g. returning an incoming
 * transfer); operators may reverse anything and may force a reversal whose funds were already
 * spent, which records the account going negative. A transaction is reversed at most once.
 */
export async function reverseTransaction(
  p: Principal,
  input: { transactionId: string; reason: string; force?: boolean },
): Promise<{ reversal: Entry; original: Entry; transfer: Transfer | null }> {
  const txn = await getTransaction({ id: input.transactionId, userId: p.isAdmin ? null : p.userId, environment: p.environment });
  if (!txn) throw new DomainError(404, 'NOT_FOUND', 'Transaction not found', '/transaction_id');
  if (input.force && !p.isAdmin) throw new DomainError(403, 'FORCE_REQUIRES_OPERATOR', 'Only platform operators can force a reversal', '/force');
  const original = await getEntry(txn.entryId);
  if (!original) throw new DomainError(404, 'NOT_FOUND', 'Transaction not found', '/transaction_id');
  if (original.reversesEntryId) throw new DomainError(422, 'CANNOT_REVERSE_REVERSAL', 'A reversal cannot itself be reversed', '/transaction_id');
  if (original.reversedByEntryId) throw new DomainError(422, 'ALREADY_REVERSED', 'This transaction has already been reversed', '/transaction_id');
  if (original.status !== 'posted') throw new DomainError(422, 'NOT_POSTED', `Only completed transactions can be reversed (this one is ${txn.status})`, '/transaction_id');
  if (!p.isAdmin) {
    const { rows } = await getPool().query<{ id: string }>(
      'SELECT id FROM accounts WHERE id = ANY($1::text[]) AND user_id <> $2',
      [original.lines.filter((l) => l.direction === 'credit' && l.customerAccountId).map((l) => l.customerAccountId), p.userId],
    );
    if (rows.length > 0) {
      throw new DomainError(403, 'REVERSAL_NOT_PERMITTED', 'Reversing this transaction would take money from another customer; ask an operator', '/transaction_id');
    }
  }
  return withTransaction(async (c) => {
    const reversal = await reverseEntry(
      original.id,
      { idempotencyKey: `reversal:${original.id}`, reason: input.reason, force: input.force === true, userId: p.userId },
      c,
    ).catch((err) => {
      if (err instanceof LedgerError) throw new DomainError(err.code === 'IDEMPOTENCY_CONFLICT' ? 409 : 422, err.code, err.message);
      throw err;
    });
    const { rows } = await c.query<{ id: string }>('SELECT id FROM transfers WHERE entry_id = $1 FOR UPDATE', [original.id]);
    let transfer: Transfer | null = null;
    if (rows[0]) {
      transfer = await updateTransfer(c, rows[0].id, { status: 'reversed', reversal_entry_id: reversal.id });
      await emitTransferEvents(c, transfer, ['transfer.reversed'], { reason: input.reason, reversal_entry_id: reversal.id });
    }
    return { reversal, original, transfer };
  });
}
