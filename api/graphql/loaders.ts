/**
 * Per-operation batch loaders (dataloader): a page of transactions with their accounts and assets
 * costs one query per kind, not one per row (tests/graphql/queries.test.ts counts them). Loaders
 * only return what the caller may see (its own accounts in its environment), so a nested field can
 * never reach another user's record.
 */
import DataLoader from 'dataloader';
import { accountsByIds, type Account } from '../../domain/accounts';
import { getAsset, type Asset } from '../../domain/assets';
import type { Principal } from '../../domain/auth/principal';

export interface Loaders {
  account: DataLoader<string, Account | null>;
  asset: DataLoader<string, Asset | null>;
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
  };
}
