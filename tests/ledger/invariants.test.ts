import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePool, getPool } from '../../domain/db/pool';
import { closePrisma } from '../../domain/db/prisma';
import { custodyAddress } from '../../domain/chains/custody';
import { checkOutflows } from '../../domain/ledger/outflows';
import { newId } from '../../domain/platform/ids';
import { useTestDatabase } from '../helpers/db';
import { checkMoneyInvariants, checkMoneyInvariantsAt } from '../helpers/money-invariants';
import { deposit, key, makeCustomer, transfer } from './helpers';
import { ensureCustomerLedgerAccount } from '../../domain/accounts';
import { postEntry, systemAccount } from '../../domain/ledger';

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

  // Invariant 4 (domain/ledger/outflows.ts), against the defect it was written for (issue 41 item 1):
  // a bridge that delivered to someone else's address but credited the customer's own book.
  it('reports a bridge to an outside address whose entries kept the money on the customer\'s books', async () => {
    const a = await makeCustomer('USDC');
    await deposit(a.la, 'USDC', '20.00');
    const arbitrumBook = await ensureCustomerLedgerAccount(a.account.id, 'USDC', getPool(), 'arbitrum');
    const fees = await systemAccount('sandbox', 'USDC', 'fee_revenue', 'bridge-fee');
    // The defect's entry: source book -> the customer's destination-chain book, fee -> revenue.
    const kept = await postEntry({
      environment: 'sandbox',
      idempotencyKey: key('bridge'),
      type: 'bridge',
      lines: [
        { accountId: a.la, direction: 'debit', amount: '20.00' },
        { accountId: arbitrumBook, direction: 'credit', amount: '19.50' },
        { accountId: fees, direction: 'credit', amount: '0.50' },
      ],
    });
    const c = await getPool().connect();
    const plant = async (recipient: string) => {
      const quoteId = newId('bq');
      await c.query(
        `INSERT INTO bridge_quotes (id, environment, user_id, protocol, source_chain, destination_chain, token, destination_token, asset_code, amount, fee_amount, receive_amount, exchange_rate, estimated_duration_seconds, fee_breakdown, expires_at)
         VALUES ($1, 'sandbox', $2, 'wormhole', 'ethereum', 'arbitrum', 'USDC', 'USDC', 'USDC', 20, 0.5, 19.5, 1, 60, '{}', now())`,
        [quoteId, a.userId],
      );
      const id = newId('brg');
      await c.query(
        `INSERT INTO bridge_transfers (id, environment, user_id, account_id, quote_id, protocol, source_chain, destination_chain, token, destination_token, asset_code,
                                       amount, fee_amount, receive_amount, min_receive_amount, slippage_tolerance, sender_address, recipient_address, status, workflow_id,
                                       deadline_at, estimated_completion_at, settlement_entry_id)
         VALUES ($1, 'sandbox', $2, $3, $4, 'wormhole', 'ethereum', 'arbitrum', 'USDC', 'USDC', 'USDC', 20, 0.5, 19.5, 19.5, 0.005, $5, $6, 'completed', $1, now(), now(), $7)`,
        [id, a.userId, a.account.id, quoteId, custodyAddress(a.account.id, 'ethereum'), recipient, kept.id],
      );
      return id;
    };
    try {
      await c.query('BEGIN');
      const outside = await plant('0x000000000000000000000000000000000000dEaD');
      const report = await checkOutflows(c);
      expect(report.problems).toHaveLength(1);
      expect(report.problems[0]).toMatch(new RegExp(`^bridge ${outside}: the customer's books changed by -0\\.50* USDC across its entries, expected -20(\\.0+)? \\(what left plus its fee\\)$`));
      expect(report.checked).toMatchObject({ 'bridge:outside': 1, 'bridge:own_custody': 0 });
      await c.query('ROLLBACK');
      // The same entries are right for a bridge to the account's own custody address: only the fee left its books.
      await c.query('BEGIN');
      await plant(custodyAddress(a.account.id, 'arbitrum'));
      const own = await checkOutflows(c);
      expect(own.problems).toEqual([]);
      expect(own.checked).toMatchObject({ 'bridge:outside': 0, 'bridge:own_custody': 1 });
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });

  it('reports an outbound payment whose entries credited another customer, or charged other than its amount', async () => {
    const a = await makeCustomer('USD');
    const b = await makeCustomer('USD');
    await deposit(a.la, 'USD', '30.00');
    const moved = await transfer(a.la, b.la, '7.00');
    const c = await getPool().connect();
    try {
      await c.query('BEGIN');
      const plant = async (amount: string) => {
        const id = newId('rp');
        await c.query(
          `INSERT INTO rail_payments (id, environment, user_id, account_id, rail, requested_rail, amount, currency, status, creditor, routing, workflow_id, reservation_entry_id)
           VALUES ($1, 'sandbox', $2, $3, 'ach', 'ach', $4, 'USD', 'completed', '{}', '{}', $1, $5)`,
          [id, a.userId, a.account.id, amount, moved.id],
        );
        return id;
      };
      const sameAmount = await plant('7.00');
      const moreCharged = await plant('10.00');
      const { problems } = await checkOutflows(c);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^rail_payment ${sameAmount}: its entries credited 7(\\.0+)? USD to another customer's books`)),
          expect.stringMatching(new RegExp(`^rail_payment ${moreCharged}: the customer's books changed by -7(\\.0+)? USD across its entries, expected -10(\\.0+)?`)),
        ]),
      );
      expect(problems).toHaveLength(3);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });
});
