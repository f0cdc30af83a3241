/**
 * Renaming an account and replacing its metadata (PATCH /api/v2/accounts/{uuid}). The change and
 * its account.updated event are written in one transaction; a request that changes nothing writes
 * nothing and emits nothing. A closed account cannot be changed.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Principal } from '../auth/principal';
import { withTransaction } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { DomainError } from '../platform/errors';
import { AccountError, getAccount, toPublicAccount, type Account } from './index';

const MAX_METADATA_BYTES = 16 * 1024;

export interface AccountChanges {
  name?: string;
  /** Replaces the whole metadata object. */
  metadata?: Record<string, unknown>;
}

export async function updateOwnAccount(p: Principal, id: string, input: AccountChanges): Promise<Account> {
  const name = input.name === undefined ? undefined : typeof input.name === 'string' ? input.name.trim() : '';
  if (name !== undefined && (name === '' || name.length > 255)) throw new AccountError('INVALID_ACCOUNT', 'name must be 1 to 255 characters');
  const metadata = input.metadata;
  if (metadata !== undefined) {
    if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw new AccountError('INVALID_ACCOUNT', 'metadata must be an object');
    if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) throw new AccountError('INVALID_ACCOUNT', 'metadata is larger than 16 KiB');
  }
  return withTransaction(async (c) => {
    const { rows } = await c.query<{ id: string }>('SELECT id FROM accounts WHERE id = $1 AND user_id = $2 AND environment = $3 FOR UPDATE', [id, p.userId, p.environment]);
    if (!rows[0]) throw new DomainError('NOT_FOUND', 'Account not found');
    const before = (await getAccount(p.userId, p.environment, id, c))!;
    if (before.status === 'closed') throw new AccountError('ACCOUNT_CLOSED', `account ${id} is closed`);
    const changes: Array<'name' | 'metadata'> = [];
    const previous: Record<string, unknown> = {};
    if (name !== undefined && name !== before.name) {
      changes.push('name');
      previous.name = before.name;
    }
    if (metadata !== undefined && !isDeepStrictEqual(metadata, before.metadata)) {
      changes.push('metadata');
      previous.metadata = before.metadata;
    }
    if (changes.length === 0) return before;
    await c.query(
      `UPDATE accounts SET name = CASE WHEN $2::boolean THEN $3 ELSE name END,
                           metadata = CASE WHEN $4::boolean THEN $5::jsonb ELSE metadata END, updated_at = now()
        WHERE id = $1`,
      [id, changes.includes('name'), name ?? null, changes.includes('metadata'), JSON.stringify(metadata ?? {})],
    );
    const account = (await getAccount(p.userId, p.environment, id, c))!;
    await writeOutboxEvent(c, {
      type: 'account.updated',
      environment: account.environment,
      userId: account.userId,
      aggregateType: 'account',
      aggregateId: account.id,
      data: { account: toPublicAccount(account), changes, previous },
    });
    return account;
  });
}
