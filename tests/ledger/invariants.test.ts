import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool, getPool } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { newId } from '../../domain/platform/ids';
import { useTestDatabase } from '../helpers/db';
import { checkMoneyInvariants, checkMoneyInvariantsAt } from '../helpers/money-invariants';
import { deposit, makeCustomer, transfer } from './helpers';

/** The after-every-file money check (tests/helpers/setup-invariants.ts) reports a corrupted ledger. */

let url: string;
beforeAll(async () => {
  url = await useTestDatabase();
});
afterAll(async () => {
  await closePrisma();
  await closePool();
});

describe('money invariants check', () => {
  it('finds nothing wrong in a ledger written only through the ledger functions', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '100.00');
    await transfer(a.la, b.la, '10.00');
    await transfer(a.la, b.la, '5.00', { pending: true });
    expect(await checkMoneyInvariantsAt(url)).toEqual([]);
  });

  it('reports totals that no longer match the lines, and assets that no longer balance', async () => {
    const a = await makeCustomer('EUR');
    await deposit(a.la, 'EUR', '42.00');
    const c = await getPool().connect();
    try {
      await c.query('BEGIN');
      await c.query(`UPDATE ledger_accounts SET credits_posted = credits_posted + 1 WHERE id = $1`, [a.la]);
      const problems = await checkMoneyInvariants(c);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ledger accounts of sandbox EUR do not balance: debits - credits = -1\.0+ posted, 0\.?0* pending$/),
          expect.stringContaining(`ledger account ${a.la} totals differ from its lines`),
        ]),
      );
      await c.query(`UPDATE ledger_accounts SET credits_posted = credits_posted - 1, debits_pending = debits_pending + 2.5 WHERE id = $1`, [a.la]);
      const pending = await checkMoneyInvariants(c);
      expect(pending).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^ledger accounts of sandbox EUR do not balance: .* 2\.50* pending$/),
          expect.stringContaining(`ledger account ${a.la} totals differ from its lines`),
        ]),
      );
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
    expect(await checkMoneyInvariantsAt(url)).toEqual([]);
  });

  it('reports a reservation left pending by a transfer in a final state', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD', 'sandbox');
    await deposit(a.la, 'USD', '20.00');
    const held = await transfer(a.la, b.la, '7.00', { pending: true });
    const c = await getPool().connect();
    try {
      await c.query('BEGIN');
      const id = newId('txf');
      await c.query(
        `INSERT INTO transfers (id, environment, user_id, from_account_id, to_account_id, asset_code, amount, status, entry_id)
         VALUES ($1, 'sandbox', $2, $3, $4, 'USD', 7, 'completed', $5)`,
        [id, a.userId, a.account.id, b.account.id, held.id],
      );
      expect(await checkMoneyInvariants(c)).toEqual([`transfers ${id} is completed but still holds pending entry ${held.id} (entry_id)`]);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });
});
