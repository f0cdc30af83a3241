/**
 * The cross-chain portfolio (GET /api/v2/crosschain/portfolio): every chain book of the caller's
 * accounts (or of one account) with USD values, per chain and per asset, and the bridges still on
 * their way. The holdings and their valuation are the DeFi portfolio's (domain/defi/holdings.ts).
 */
import { custodyAddress } from '../chains/custody';
import { getChain } from '../chains/registry';
import { chainHoldings, portfolioAccountIds, roundUsd } from '../defi/holdings';
import { DecimalMoney } from '../money/amount';
import type { Environment } from '../platform/environment';
import { inFlightBridges, type BridgeTransfer } from './transfers';

type Dec = InstanceType<typeof DecimalMoney>;

export interface CrosschainHolding {
  accountId: string;
  assetCode: string;
  token: string;
  tokenAddress: string | null;
  /** The account's custodial address on the chain. */
  address: string;
  availableBalance: string;
  reservedBalance: string;
  totalBalance: string;
  usdValue: string;
}

export interface CrosschainPortfolio {
  totalUsd: string;
  chains: Array<{ chain: string; name: string; caip2: string; totalUsd: string; holdings: CrosschainHolding[] }>;
  assets: Array<{ assetCode: string; totalBalance: string; usdValue: string; chains: string[] }>;
  inFlight: BridgeTransfer[];
}

/** Chain totals add unrounded values (an asset without a USD rate counts as 0); each is rounded to the cent once. */
export async function crosschainPortfolio(input: { userId: string; environment: Environment; accountId?: string | null }): Promise<CrosschainPortfolio> {
  const accountIds = await portfolioAccountIds(input.userId, input.environment, input.accountId ?? null);
  const chains = new Map<string, { chain: string; name: string; caip2: string; total: Dec; holdings: CrosschainHolding[] }>();
  const assets = new Map<string, { total: Dec; usd: Dec; chains: Set<string>; places: number }>();
  for (const h of await chainHoldings(accountIds)) {
    const info = getChain(h.chain);
    const value = h.usdValue ?? new DecimalMoney(0);
    const entry = chains.get(h.chain) ?? { chain: h.chain, name: info.name, caip2: info.caip2, total: new DecimalMoney(0), holdings: [] };
    entry.total = entry.total.plus(value);
    entry.holdings.push({
      accountId: h.accountId,
      assetCode: h.assetCode,
      token: h.token?.symbol ?? h.assetCode,
      tokenAddress: h.token?.address ?? null,
      address: custodyAddress(h.accountId, h.chain),
      availableBalance: h.availableBalance,
      reservedBalance: h.reservedBalance,
      totalBalance: h.totalBalance,
      usdValue: roundUsd(value),
    });
    chains.set(h.chain, entry);
    const agg = assets.get(h.assetCode) ?? { total: new DecimalMoney(0), usd: new DecimalMoney(0), chains: new Set<string>(), places: h.totalBalance.split('.')[1]?.length ?? 0 };
    agg.total = agg.total.plus(h.totalBalance);
    agg.usd = agg.usd.plus(value);
    agg.chains.add(h.chain);
    assets.set(h.assetCode, agg);
  }
  const inFlight = (await inFlightBridges(input.userId, input.environment)).filter((t) => accountIds.includes(t.accountId));
  const total = [...chains.values()].reduce((s, c) => s.plus(c.total), new DecimalMoney(0));
  return {
    totalUsd: roundUsd(total),
    chains: [...chains.values()].map((c) => ({ chain: c.chain, name: c.name, caip2: c.caip2, totalUsd: roundUsd(c.total), holdings: c.holdings })),
    assets: [...assets.entries()].map(([code, a]) => ({ assetCode: code, totalBalance: a.total.toFixed(a.places), usdValue: roundUsd(a.usd), chains: [...a.chains] })),
    inFlight,
  };
}
