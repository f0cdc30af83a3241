/**
 * Per-operation batch loaders (dataloader): a page of transactions with their accounts and assets
 * costs one query per kind, not one per row (tests/graphql/queries.test.ts counts them). Loaders
 * only return what the caller may see (its own accounts in its environment), so a nested field can
 * never reach another user's record.
 */
import DataLoader from 'dataloader';
import { accountsByIds, type Account, type AccountBalances } from '../../domain/accounts';
import { getOwnBalances, ownAccountIdentifiers, type AccountIdentifiers } from '../../domain/accounts/own';
import { getAsset, type Asset } from '../../domain/assets';
import type { Principal } from '../../domain/auth/principal';

export interface Loaders {
  account: DataLoader<string, Account | null>;
  asset: DataLoader<string, Asset | null>;
  /** An account's balances and USD summary, read once per request however many fields need them. */
  balances: DataLoader<string, AccountBalances>;
  /** The identifiers (IBAN) of the caller's own accounts; null for any other account. */
  identifiers: DataLoader<string, AccountIdentifiers | null>;
}

export function createLoaders(principal: Principal | null): Loaders {
  return {
    account: new DataLoader(async (ids) => {
      if (!principal) return ids.map(() => null);
      const found = await accountsByIds(ids, principal);
      return ids.map((id) => found.get(id) ?? null);
    }),
    // Assets are cached per process (domain/assets): a batch costs no query once warm.
    asset: new DataLoader(async (codes) => Promise.all(codes.map((c) => getAsset(c)))),
    // Ownership is checked by getOwnBalances itself (another user's account: NOT_FOUND).
    balances: new DataLoader(async (ids) => Promise.all(ids.map((id) => (principal ? getOwnBalances(principal, id) : Promise.reject(new Error('no principal'))).catch((e: Error) => e)))),
    identifiers: new DataLoader(async (ids) => {
      if (!principal) return ids.map(() => null);
      const found = await ownAccountIdentifiers(principal, ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
