import type { Principal } from '../auth/principal';
import { getPool, type Queryable } from '../db/pool';
import { DomainError } from '../platform/errors';
import { getTransfer, type Transfer } from './index';
import type { TransferProgress } from './progress';
import { queryTransferProgress } from './workflow';

/**
 * A transfer is visible to its sender and to the owner of the destination account; to anyone
 * else (another user, another environment) it does not exist: NOT_FOUND.
 */
export async function getVisibleTransfer(p: Principal, id: string, client: Queryable = getPool()): Promise<Transfer> {
  const t = await getTransfer(id, { environment: p.environment }, client);
  if (!t) throw new DomainError('NOT_FOUND', 'Transfer not found');
  if (t.userId !== p.userId) {
    const { rows } = await client.query('SELECT 1 FROM accounts WHERE id = $1 AND user_id = $2', [t.toAccountId, p.userId]);
    if (rows.length === 0) throw new DomainError('NOT_FOUND', 'Transfer not found');
  }
  return t;
}

/** A visible transfer and, while its workflow runs (pending or in review), the workflow's live progress. */
export async function getTransferWithProgress(p: Principal, id: string): Promise<{ transfer: Transfer; progress: TransferProgress | undefined }> {
  const transfer = await getVisibleTransfer(p, id);
  const running = transfer.workflowId && (transfer.status === 'pending' || transfer.status === 'pending_review');
  const progress = running ? await queryTransferProgress(transfer.workflowId!) : undefined;
  return { transfer, progress };
}
