import type { Principal } from '../auth/principal';
import { getPool, withTransaction } from '../db/pool';
import { LedgerError, getEntry, reverseEntry, type Entry } from '../ledger';
import { getTransaction } from '../ledger/transactions';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { emitTransferEvents, updateTransfer, type Transfer } from '../transfers';
import { classifyEntry, isReversible, notReversibleReason, type ReversibleKind } from './kinds';

/**
 * Reverses the entry behind a transaction with a new, linked reversing entry (docs/ledger.md,
 * "Reversals"). Only movements that stayed inside the platform's ledger can be reversed: internal
 * transfers and operators' manual entries (domain/reversals/kinds.ts decides what an entry is).
 * Everything that entered or left the platform (deposits, withdrawals, rails, Interledger, swaps,
 * bridges, flash loans) is 422 NOT_REVERSIBLE for everyone: its own return or refund process undoes it.
 * A customer may return an internal transfer only when the money comes back out of their own
 * accounts (they received it, or both sides are theirs), within REVERSAL_WINDOW_DAYS of its
 * posting; manual entries are reversed by operators only. Operators may reverse any internal
 * transfer at any time and may force a reversal whose funds were already spent, which records the
 * account going negative. A transaction is reversed at most once.
 */
export async function reverseTransaction(
  p: Principal,
  input: { transactionId: string; reason: string; force?: boolean },
): Promise<{ reversal: Entry; original: Entry; transfer: Transfer | null }> {
  const txn = await getTransaction({ id: input.transactionId, userId: p.isAdmin ? null : p.userId, environment: p.environment });
  if (!txn) throw new DomainError('NOT_FOUND', 'Transaction not found', '/transaction_id');
  if (input.force && !p.isAdmin) throw new DomainError('FORCE_REQUIRES_OPERATOR', 'Only platform operators can force a reversal', '/force');
  const original = await getEntry(txn.entryId);
  if (!original) throw new DomainError('NOT_FOUND', 'Transaction not found', '/transaction_id');
  if (original.reversesEntryId) throw new DomainError('CANNOT_REVERSE_REVERSAL', 'A reversal cannot itself be reversed', '/transaction_id');
  const kind = await classifyEntry(original);
  if (!isReversible(kind)) throw new DomainError('NOT_REVERSIBLE', notReversibleReason(kind), '/transaction_id');
  if (original.reversedByEntryId) throw new DomainError('ALREADY_REVERSED', 'This transaction has already been reversed', '/transaction_id');
  if (original.status !== 'posted') throw new DomainError('NOT_POSTED', `Only completed transactions can be reversed (this one is ${txn.status})`, '/transaction_id');
  if (!p.isAdmin) await checkCustomerReversal(p, original, kind);
  return withTransaction(async (c) => {
    const reversal = await reverseEntry(
      original.id,
      { idempotencyKey: `reversal:${original.id}`, reason: input.reason, force: input.force === true, userId: p.userId },
      c,
    ).catch((err) => {
      if (err instanceof LedgerError) throw new DomainError(err.code, err.message);
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

/**
 * A customer returns an internal transfer only when the money comes back out of their own
 * accounts (every account the entry credited is theirs) and within the window since it was
 * posted; everything else is for an operator.
 */
async function checkCustomerReversal(p: Principal, original: Entry, kind: ReversibleKind): Promise<void> {
  if (kind.kind !== 'internal_transfer') {
    throw new DomainError('REVERSAL_NOT_PERMITTED', 'Manual ledger entries are corrected by platform operators; ask an operator', '/transaction_id');
  }
  const { rows } = await getPool().query<{ id: string }>(
    'SELECT id FROM accounts WHERE id = ANY($1::text[]) AND user_id <> $2',
    [original.lines.filter((l) => l.direction === 'credit' && l.customerAccountId).map((l) => l.customerAccountId), p.userId],
  );
  if (rows.length > 0) {
    throw new DomainError('REVERSAL_NOT_PERMITTED', 'Reversing this transaction would take money from another customer; ask an operator', '/transaction_id');
  }
  const days = loadConfig().reversalWindowDays;
  const postedAt = original.postedAt ?? original.createdAt;
  if (Date.now() - postedAt.getTime() >= days * 86_400_000) {
    throw new DomainError('REVERSAL_WINDOW_EXPIRED',
      `An internal transfer can be returned within ${days} days of its posting (this one was posted ${postedAt.toISOString()}); ask an operator`,
      '/transaction_id',
    );
  }
}
