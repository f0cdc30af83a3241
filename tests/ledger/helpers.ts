import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createAccount, ensureCustomerLedgerAccount, type Account } from '../../domain/accounts';
import { getPool } from '../../domain/db/pool';
import { LedgerError, postEntry, systemAccount, type Entry } from '../../domain/ledger';
import type { Environment } from '../../domain/platform/environment';
import { newId } from '../../domain/platform/ids';

export const key = (label = 'k') => `test:${label}:${randomUUID()}`;

/** A user row (accounts reference users); password hashing is not what these tests are about. */
export async function makeUser(): Promise<string> {
  const id = newId('usr');
  await getPool().query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, 'Ledger Tester', $2, 'x')`, [id, `${id}@example.test`]);
  return id;
}

export async function makeAccount(userId?: string, environment: Environment = 'sandbox'): Promise<Account> {
  return createAccount({ userId: userId ?? (await makeUser()), environment, name: 'Main', type: 'personal', metadata: { test: true } });
}

/** A customer account and its ledger account for an asset. */
export async function makeCustomer(asset = 'USD', environment: Environment = 'sandbox', userId?: string) {
  const account = await makeAccount(userId, environment);
  const la = await ensureCustomerLedgerAccount(account.id, asset);
  return { account, la, userId: account.userId };
}

/** Sandbox-style deposit: debit the funding account (sharded by the key), credit the customer. */
export async function deposit(la: string, asset: string, amount: string, opts: { environment?: Environment; idempotencyKey?: string; reference?: string } = {}): Promise<Entry> {
  const idempotencyKey = opts.idempotencyKey ?? key('dep');
  const env = opts.environment ?? 'sandbox';
  const funding = await systemAccount(env, asset, 'funding', idempotencyKey);
  return postEntry({
    environment: env,
    idempotencyKey,
    type: 'deposit',
    reference: opts.reference,
    lines: [
      { accountId: funding, direction: 'debit', amount },
      { accountId: la, direction: 'credit', amount },
    ],
  });
}

export async function transfer(from: string, to: string, amount: string, opts: { idempotencyKey?: string; pending?: boolean; pendingTimeoutSeconds?: number; reference?: string } = {}): Promise<Entry> {
  return postEntry({
    environment: 'sandbox',
    idempotencyKey: opts.idempotencyKey ?? key('xfer'),
    type: 'transfer',
    reference: opts.reference,
    pending: opts.pending,
    pendingTimeoutSeconds: opts.pendingTimeoutSeconds,
    lines: [
      { accountId: from, direction: 'debit', amount },
      { accountId: to, direction: 'credit', amount },
    ],
  });
}

export async function expectLedgerError(p: Promise<unknown>, code: string): Promise<LedgerError> {
  const err = await p.then(
    () => {
      throw new Error(`expected LedgerError ${code}, but the call succeeded`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LedgerError);
  expect((err as LedgerError).code).toBe(code);
  return err as LedgerError;
}

export async function totals(la: string) {
  const { rows } = await getPool().query<{ debits_pending: string; debits_posted: string; credits_pending: string; credits_posted: string; overdraft_allowance: string }>(
    `SELECT trim_scale(debits_pending)::text AS debits_pending, trim_scale(debits_posted)::text AS debits_posted,
            trim_scale(credits_pending)::text AS credits_pending, trim_scale(credits_posted)::text AS credits_posted,
            trim_scale(overdraft_allowance)::text AS overdraft_allowance
     FROM ledger_accounts WHERE id = $1`,
    [la],
  );
  return rows[0];
}
