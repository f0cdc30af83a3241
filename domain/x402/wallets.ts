/**
 * Payer wallets: an EVM address a customer pays from, bound to one of their accounts. In the
 * sandbox the wallet's USDC is that account's USDC book, so a payment signed by the address
 * settles from it (domain/x402/payments.ts); in production a registered wallet lets its owner set
 * spending limits on it and see its payments. Registration needs the address's own signature
 * (EIP-191) over a message naming the account and environment, so nobody binds a wallet they do
 * not control, nor someone else's wallet to their account.
 */
import { getAddress, isAddress, isHex, verifyMessage } from 'viem';
import { getAccount } from '../accounts';
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';

export interface PayerWallet {
  id: string;
  environment: Environment;
  address: string;
  accountId: string;
  label: string | null;
  createdAt: Date;
}

const COLUMNS = `id, environment, address, account_id AS "accountId", label, created_at AS "createdAt"`;

/** The message a wallet signs (personal_sign) to be registered. */
export function walletRegistrationMessage(address: string, accountId: string, environment: Environment): string {
  return `Register wallet ${getAddress(address)} to pay from account ${accountId} (${environment}) on the Multi-Asset Banking Platform`;
}

export async function registerWallet(
  owner: { userId: string; environment: Environment },
  input: { address: unknown; accountId: unknown; signature: unknown; label?: unknown },
  c: Queryable = getPool(),
): Promise<PayerWallet> {
  if (typeof input.address !== 'string' || !isAddress(input.address, { strict: false })) throw new DomainError('VALIDATION_ERROR', 'address must be an EVM address', '/address');
  if (typeof input.accountId !== 'string') throw new DomainError('VALIDATION_ERROR', 'account_id is required', '/account_id');
  if (typeof input.signature !== 'string' || !isHex(input.signature)) throw new DomainError('VALIDATION_ERROR', 'signature must be hex', '/signature');
  if (input.label !== undefined && input.label !== null && (typeof input.label !== 'string' || input.label.length > 100)) {
    throw new DomainError('VALIDATION_ERROR', 'label must be at most 100 characters', '/label');
  }
  const account = await getAccount(owner.userId, owner.environment, input.accountId, c);
  if (!account) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`, '/account_id');
  if (account.status !== 'active') throw new DomainError(`ACCOUNT_${account.status.toUpperCase()}`, `The account is ${account.status}`, '/account_id');
  const message = walletRegistrationMessage(input.address, account.id, owner.environment);
  const ok = await verifyMessage({ address: getAddress(input.address), message, signature: input.signature as `0x${string}` }).catch(() => false);
  if (!ok) throw new DomainError('WALLET_SIGNATURE_INVALID', `signature is not ${getAddress(input.address)}'s over: ${message}`, '/signature');
  const address = input.address.toLowerCase();
  const { rows } = await c.query<PayerWallet>(
    `INSERT INTO x402_wallets (id, environment, address, user_id, account_id, label) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (environment, address) DO UPDATE SET account_id = EXCLUDED.account_id, label = EXCLUDED.label
       WHERE x402_wallets.user_id = EXCLUDED.user_id
     RETURNING ${COLUMNS}`,
    [newId('wal'), owner.environment, address, owner.userId, account.id, (input.label as string | undefined) ?? null],
  );
  // Another customer registered this address first (they proved control of it too): it stays theirs.
  if (!rows[0]) throw new DomainError('WALLET_ALREADY_REGISTERED', `Wallet ${getAddress(address)} is registered to another customer`, '/address');
  return rows[0];
}

export async function listWallets(userId: string, environment: Environment, c: Queryable = getPool()): Promise<PayerWallet[]> {
  const { rows } = await c.query<PayerWallet>(`SELECT ${COLUMNS} FROM x402_wallets WHERE user_id = $1 AND environment = $2 ORDER BY created_at, id`, [userId, environment]);
  return rows;
}

export async function removeWallet(userId: string, environment: Environment, address: string, c: Queryable = getPool()): Promise<PayerWallet> {
  const { rows } = await c.query<PayerWallet>(`DELETE FROM x402_wallets WHERE user_id = $1 AND environment = $2 AND address = $3 RETURNING ${COLUMNS}`, [
    userId,
    environment,
    address.toLowerCase(),
  ]);
  if (!rows[0]) throw new DomainError('WALLET_NOT_FOUND', `No wallet ${address} of yours in ${environment}`);
  return rows[0];
}
