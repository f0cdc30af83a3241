/**
 * Where DeFi money sits in the ledger, and which customer account pays.
 *
 * - dex_settlement:<chain>:<dex> (internal, debit-normal, per asset): the platform's flow with a
 *   DEX on a chain. Token sent into a pool is a credit, token received from a pool a debit, so
 *   its balance is the net value the platform took out of that DEX.
 * - flash_lender:<chain>:<protocol> (internal, debit-normal, per asset): the same for a lending
 *   pool; a repaid flash loan leaves a credit of the loan fee.
 * - lending_market:<market id> (internal, debit-normal, per asset): the platform's flow with a
 *   money market. Supplies and repayments are credits, withdrawals and borrows debits.
 * - lending_liquidations:<chain>:<protocol> (internal, debit-normal, per asset): the outside
 *   liquidators' side of a liquidation: the collateral they seized (credit) for the debt they
 *   repaid (debit).
 * - fee_revenue (system): network fees charged to customers.
 */
import { ensureChainLedgerAccount, payingAccountCandidates } from '../chains/books';
import type { Queryable } from '../db/pool';
import { getPool } from '../db/pool';
import { internalLedgerAccountId } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { DEX_INFO, type DexName } from './pools';

function internal(environment: Environment, assetCode: string, code: string, name: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId({ environment, assetCode, code, name, normalBalance: 'debit' }, c);
}

export function dexSettlementAccount(environment: Environment, chain: string, dex: string, assetCode: string, c: Queryable): Promise<string> {
  const name = DEX_INFO[dex as DexName]?.name ?? dex;
  return internal(environment, assetCode, `dex_settlement:${chain}:${dex}`, `${name} settlement ${assetCode} on ${chain}`, c);
}

export function lenderAccount(environment: Environment, chain: string, protocol: string, assetCode: string, c: Queryable): Promise<string> {
  return internal(environment, assetCode, `flash_lender:${chain}:${protocol}`, `${protocol} flash loans ${assetCode} on ${chain}`, c);
}

export function lendingMarketAccount(environment: Environment, market: { id: string; asset: string }, c: Queryable): Promise<string> {
  return internal(environment, market.asset, `lending_market:${market.id}`, `Lending market ${market.id}`, c);
}

export function lendingLiquidationsAccount(environment: Environment, chain: string, protocol: string, assetCode: string, c: Queryable): Promise<string> {
  return internal(environment, assetCode, `lending_liquidations:${chain}:${protocol}`, `${protocol} liquidators ${assetCode} on ${chain}`, c);
}

export { ensureChainLedgerAccount };

/**
 * The customer account a DeFi operation uses (payingAccountCandidates): the caller's oldest active
 * account whose book of the asset on that chain has `needed` available, or (needed null / nobody
 * has it) the oldest active account. 422 NO_ACCOUNT when the caller has no active account.
 */
export async function resolveAccount(
  input: { userId: string; environment: Environment; accountId?: string | null; assetCode?: string; chain?: string; needed?: string | null },
  c: Queryable = getPool(),
): Promise<{ accountId: string; available: string | null }> {
  const active = await payingAccountCandidates(input, c);
  if (active.length === 0) throw new DomainError('NO_ACCOUNT', 'Open an account first: the operation needs an active account to book the tokens on', '/account_id');
  const needed = input.needed;
  return (needed && active.find((a) => a.available !== null && new D(a.available).gte(needed))) || active[0];
}
