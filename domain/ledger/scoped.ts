/**
 * Ledger operations as a caller asks for them: who sees which ledger accounts and entries, and how
 * an operator's manual entry and settlement decisions are keyed. The REST routes
 * (api/routes/ledger) call these; the ledger primitives stay in ./index.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { DomainError } from '../platform/errors';
import {
  clientIdempotencyKey,
  getEntry,
  listLedgerAccounts,
  postManualEntry,
  postPending,
  trialBalance,
  voidPending,
  type Direction,
  type Entry,
  type LedgerAccount,
  type LedgerAccountKind,
  type TrialBalance,
} from './index';

/** Operators see every ledger account of the environment; customers their own accounts' ledger accounts. */
export async function listVisibleLedgerAccounts(p: Principal, q: { assetCode?: string; kind?: LedgerAccountKind }): Promise<LedgerAccount[]> {
  const all = await listLedgerAccounts({ environment: p.environment, assetCode: q.assetCode?.toUpperCase(), kind: q.kind });
  return p.isAdmin ? all : all.filter((a) => a.userId === p.userId);
}

/** An entry of the caller's environment, else NOT_FOUND. */
export async function getEnvironmentEntry(p: Principal, id: string): Promise<Entry> {
  const entry = await getEntry(id);
  if (!entry || entry.environment !== p.environment) throw new DomainError('NOT_FOUND', 'Entry not found');
  return entry;
}

export interface ManualEntryRequest {
  type?: string;
  description?: string;
  reference?: string;
  pending?: boolean;
  lines: Array<{ accountId: string; direction: Direction; amount: string }>;
}

/**
 * An operator's balanced manual entry, keyed by the client's Idempotency-Key when given (scoped to
 * the operator), else by a fresh key. Recorded with the operator as poster.
 */
export async function postOperatorEntry(p: Principal, req: ManualEntryRequest, idempotencyKey?: string): Promise<Entry> {
  return postManualEntry({
    environment: p.environment,
    idempotencyKey: idempotencyKey ? clientIdempotencyKey(p.userId, 'ledger-entry', idempotencyKey) : `manual:${randomUUID()}`,
    type: req.type ?? 'manual',
    description: req.description,
    reference: req.reference,
    pending: req.pending,
    userId: p.userId,
    lines: req.lines,
    metadata: { posted_by: p.email },
  });
}

/** Confirms (post) or fails (void) a pending entry of the caller's environment, at most once each. */
export async function settlePendingEntry(p: Principal, id: string, action: 'post' | 'void', reason?: string): Promise<Entry> {
  const existing = await getEnvironmentEntry(p, id);
  const key = `${action}:${existing.id}`;
  return action === 'post'
    ? postPending(existing.id, { idempotencyKey: key })
    : voidPending(existing.id, { idempotencyKey: key, reason: reason ?? 'voided by operator' });
}

/** The trial balance of the caller's environment (posted lines in [from, to) when given). */
export async function environmentTrialBalance(p: Principal, range: { from?: Date; to?: Date }): Promise<TrialBalance> {
  return trialBalance({ environment: p.environment, ...range });
}
