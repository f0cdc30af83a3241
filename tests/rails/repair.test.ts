/**
 * Rail payments recorded pending whose workflow never started (an API process that died between
 * the payment's commit and the start, and a client that never retried): the workers' housekeeping
 * starts them, as it does transfers (tests/transfers/repair.test.ts). The bounded chaos run found
 * such a payment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRailPayment } from '../../domain/rails';
import { startOrphanedRailPaymentWorkflows } from '../../domain/rails/repair';
import { createTestApp, type TestApp } from '../helpers/app';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { balance, openFundedAccount } from '../transfers/helpers';

let t: TestApp;
let w: TestWorker;
beforeAll(async () => {
  t = await createTestApp();
  w = await startTestWorker();
});
afterAll(async () => {
  await w.stop();
  await t.close();
});

const statusOf = async (id: string) => (await t.app.inject({ method: 'GET', url: `/api/v1/payment-rails/payments/${id}`, headers: t.headers })).json().data.status as string;

describe('rail payments whose workflow never started', () => {
  it('are started by the housekeeping sweep, once', async () => {
    const account = await openFundedAccount(t, t.headers, '100.00');
    // What the API leaves when it dies after the commit: the pending payment, no workflow.
    const orphan = await createRailPayment({
      userId: t.user.userId,
      environment: 'sandbox',
      accountId: account,
      amount: '12.00',
      currency: 'USD',
      rail: 'rtp',
      creditor: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' },
      now: new Date(),
    });
    expect(await statusOf(orphan.id)).toBe('pending');
    // Younger than the sweep's age: left alone (its request may still be starting it).
    expect(await startOrphanedRailPaymentWorkflows()).toBe(0);
    expect(await startOrphanedRailPaymentWorkflows({ olderThanSeconds: 0 })).toBe(1);
    for (const deadline = Date.now() + 20_000; (await statusOf(orphan.id)) !== 'completed'; ) {
      if (Date.now() > deadline) throw new Error(`payment still ${await statusOf(orphan.id)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await balance(t, t.headers, account)).toMatchObject({ total_balance: '88.00', reserved_balance: '0.00' });
    // A second sweep finds nothing; the money left once.
    expect(await startOrphanedRailPaymentWorkflows({ olderThanSeconds: 0 })).toBe(0);
    expect(await balance(t, t.headers, account)).toMatchObject({ total_balance: '88.00' });
  });
});
