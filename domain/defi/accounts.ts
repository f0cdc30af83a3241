/**
 * Where DeFi money sits in the ledger, and which customer account pays.
 *
 * - dex_settlement:<chain>:<dex> (internal, debit-normal, per asset): the platform's flow with a
 *   DEX on a chain. Token sent into a pool is a credit, token received from a pool a debit, so
 *   its balance is the net value the platform took out of that DEX.
 * - flash_lender:<chain>:<protocol> (internal, debit-normal, per asset): the same for a lending
 *   pool; a repaid flash loan leaves a credit of the loan fee.
 * - fee_revenue (system): network fees charged to customers.
 */
import { ensureChainLedgerAccount, findChainLedgerAccount } from '../chains/books';
import type { Queryable } from '../db/pool';
import { getPool } from '../db/pool';
import { createInternalLedgerAccount } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { DEX_INFO, type DexName } from './pools';

const cache = new Map<string, string>();

async function internal(environment: Environment, assetCode: string, code: string, name: string, c: Queryable): Promise<string> {
  const key = `${process.env.DATABASE_URL ?? ''}|${environment}|${assetCode}|${code}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const la = await createInternalLedgerAccount({ environment, assetCode, code, name, normalBalance: 'debit' }, c);
  cache.set(key, la.id);
  return la.id;
}

export function dexSettlementAccount(environment: Environment, chain: string, dex: string, assetCode: string, c: Queryable): Promise<string> {
  const name = DEX_INFO[dex as DexName]?.name ?? dex;
  return internal(environment, assetCode, `dex_settlement:${chain}:${dex}`, `${name} settlement ${assetCode} on ${chain}`, c);
}

export function lenderAccount(environment: Environment, chain: string, protocol: string, assetCode: string, c: Queryable): Promise<string> {
  return internal(environment, assetCode, `flash_lender:${chain}:${protocol}`, `${protocol} flash loans ${assetCode} on ${chain}`, c);
}

export { ensureChainLedgerAccount };

/**
 * The customer account a DeFi operation uses. The spec's bodies name none, so `account_id` is
 * optional: when given it must be the caller's active account (else 404 like any other foreign
 * resource); when omitted, the caller's oldest active account whose book of the asset on that
 * chain has `needed` available, or (needed null / nobody has it) the oldest active account.
 * 422 NO_ACCOUNT when the caller has no active account.
 */
export async function resolveAccount(
  input: { userId: string; environment: Environment; accountId?: string | null; assetCode?: string; chain?: string; needed?: string | null },
  c: Queryable = getPool(),
): Promise<{ accountId: string; available: string | null }> {
  const { rows } = await c.query<{ id: string; status: string }>(
    `SELECT id, status FROM accounts WHERE user_id = $1 AND environment = $2 AND ($3::text IS NULL OR id = $3) ORDER BY created_at, id`,
    [input.userId, input.environment, input.accountId ?? null],
  );
  if (input.accountId) {
    if (!rows[0]) throw new DomainError(404, 'ACCOUNT_NOT_FOUND', `Account ${input.accountId} not found`, '/account_id');
    if (rows[0].status !== 'active') throw new DomainError(422, `ACCOUNT_${rows[0].status.toUpperCase()}`, `The account is ${rows[0].status}`, '/account_id');
  }
  const active = rows.filter((r) => r.status === 'active');
  if (active.length === 0) throw new DomainError(422, 'NO_ACCOUNT', 'Open an account first: the operation needs an active account to book the tokens on', '/account_id');
  if (!input.assetCode || !input.chain) return { accountId: active[0].id, available: null };
  let firstAvailable: string | null = null;
  for (const a of active) {
    const la = await findChainLedgerAccount(a.id, input.assetCode, input.chain, c);
    const avail = la ? await availableOf(la, c) : '0';
    if (firstAvailable === null) firstAvailable = avail;
    if (!input.needed || new D(avail).gte(input.needed)) return { accountId: a.id, available: avail };
    if (input.accountId) break;
  }
  return { accountId: active[0].id, available: firstAvailable };
}

async function availableOf(ledgerAccountId: string, c: Queryable): Promise<string> {
  const { rows } = await c.query<{ b: { available_balance: string } }>('SELECT ledger_balance_json(la) AS b FROM ledger_accounts la WHERE id = $1', [ledgerAccountId]);
  return rows[0]?.b.available_balance ?? '0';
}
