import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusForCode } from '../../api/error-status';
import { closePool } from '../../domain/db/pool';
import { postManualEntry, systemAccount } from '../../domain/ledger';
import { DomainError } from '../../domain/platform/errors';
import { useTestDatabase } from '../helpers/db';
import { key } from './helpers';

beforeAll(async () => {
  await useTestDatabase();
});
afterAll(async () => closePool());

describe('manual entries (operators)', () => {
  it('a line naming no ledger account is UNKNOWN_LEDGER_ACCOUNT at that line (422), not the 404 ACCOUNT_NOT_FOUND', async () => {
    const funding = await systemAccount('sandbox', 'USD', 'funding', 'manual-unknown');
    const err = await postManualEntry({
      environment: 'sandbox',
      idempotencyKey: key(),
      type: 'manual',
      lines: [
        { accountId: funding, direction: 'debit', amount: '1.00' },
        { accountId: 'la_nope', direction: 'credit', amount: '1.00' },
      ],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'UNKNOWN_LEDGER_ACCOUNT', pointer: '/lines/1/account_id' });
    expect(statusForCode((err as DomainError).code)).toBe(422);
    expect(statusForCode('ACCOUNT_NOT_FOUND')).toBe(404);
  });
});
