/**
 * Receive details for the mobile app: where others can send the caller an asset, and a payment
 * request to show as a QR code.
 *
 * - Crypto: per chain the asset lives on, the account's custodial address on that chain (the same
 *   address the chains area uses, domain/chains/custody.ts) and a request URI: EIP-681 on EVM chains
 *   (`ethereum:<address>@<chainId>?value=<wei>` for the native coin, `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<units>`
 *   for a token), BIP-21 on Bitcoin (`bitcoin:<address>?amount=<BTC>`), Solana Pay on Solana
 *   (`solana:<address>?amount=<units>&spl-token=<mint>`).
 * - Fiat and platform assets: a request to pay the customer inside the platform (P2P by handle or
 *   email), as a `https://<public url>/pay/<handle>` link with amount and currency.
 *
 * Crediting what arrives on chain needs the custody provider's deposit notifications, which the
 * platform does not receive yet (docs/mobile.md); the addresses are the ones it would watch.
 */
import type { Principal } from '../auth/principal';
import { getAsset } from '../assets';
import { custodyAddress } from '../chains/custody';
import { chainsForAsset, getChain, tokenForAsset } from '../chains/registry';
import { getPool } from '../db/pool';
import { DecimalMoney as D, parseRequestAmount } from '../money/amount';
import { loadConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { getProfile } from './profiles';

export interface ReceiveOption {
  kind: 'chain' | 'platform';
  chain: string | null;
  caip2: string | null;
  address: string | null;
  token: string | null;
  tokenAddress: string | null;
  uri: string;
  standard: 'EIP-681' | 'BIP-21' | 'Solana Pay' | 'platform';
}

export interface ReceiveDetails {
  accountId: string;
  assetCode: string;
  amount: string | null;
  options: ReceiveOption[];
}

/** Whole units of `decimals` places for a decimal amount (EIP-681 uint256 / wei, Solana Pay's amount stays decimal). */
const baseUnits = (amount: string, decimals: number) => new D(amount).times(new D(10).pow(decimals)).toFixed(0);

export async function receiveDetails(p: Principal, q: { asset: string; account_id?: string; amount?: string; chain?: string }): Promise<ReceiveDetails> {
  const asset = await getAsset(String(q.asset).toUpperCase());
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${String(q.asset).slice(0, 12)} is not supported`, '/asset');
  const amount = q.amount === undefined ? null : parseRequestAmount(q.amount, asset);
  const { rows } = await getPool().query<{ id: string }>(
    q.account_id
      ? `SELECT id FROM accounts WHERE id = $3 AND user_id = $1 AND environment = $2`
      : `SELECT id FROM accounts WHERE user_id = $1 AND environment = $2 AND status = 'active' ORDER BY created_at, id LIMIT 1`,
    q.account_id ? [p.userId, p.environment, q.account_id] : [p.userId, p.environment],
  );
  if (!rows[0]) throw new DomainError('ACCOUNT_NOT_FOUND', q.account_id ? `Account ${q.account_id.slice(0, 60)} not found` : 'Open an account first', '/account_id');
  const accountId = rows[0].id;
  let chains = chainsForAsset(asset.code);
  if (q.chain !== undefined) {
    const c = getChain(q.chain, '/chain');
    if (!chains.includes(c.id)) throw new DomainError('UNSUPPORTED_CHAIN', `${asset.code} does not live on ${c.id}`, '/chain');
    chains = [c.id];
  }
  const options: ReceiveOption[] = chains.map((id) => {
    const chain = getChain(id);
    const token = tokenForAsset(id, asset.code)!;
    const address = custodyAddress(accountId, id);
    let uri: string;
    let standard: ReceiveOption['standard'];
    if (chain.kind === 'evm') {
      standard = 'EIP-681';
      uri = token.native
        ? `ethereum:${address}@${chain.evmChainId}${amount ? `?value=${baseUnits(amount, token.decimals)}` : ''}`
        : `ethereum:${token.address}@${chain.evmChainId}/transfer?address=${address}${amount ? `&uint256=${baseUnits(amount, token.decimals)}` : ''}`;
    } else if (chain.kind === 'bitcoin') {
      standard = 'BIP-21';
      uri = `bitcoin:${address}${amount ? `?amount=${new D(amount).toFixed()}` : ''}`;
    } else {
      standard = 'Solana Pay';
      const params = [amount ? `amount=${new D(amount).toFixed()}` : '', token.native ? '' : `spl-token=${token.address}`].filter(Boolean).join('&');
      uri = `solana:${address}${params ? `?${params}` : ''}`;
    }
    return { kind: 'chain', chain: id, caip2: chain.caip2, address, token: token.symbol, tokenAddress: token.address, uri, standard };
  });
  // Inside the platform anyone can pay the customer by handle (or email when no handle is set).
  const profile = await getProfile(p.userId);
  const who = profile.handle ? `@${profile.handle}` : null;
  if (who) {
    const params = new URLSearchParams({ currency: asset.code, ...(amount ? { amount: new D(amount).toFixed() } : {}) });
    options.push({ kind: 'platform', chain: null, caip2: null, address: null, token: null, tokenAddress: null, uri: `${loadConfig().publicUrl.replace(/\/$/, '')}/pay/${encodeURIComponent(who)}?${params}`, standard: 'platform' });
  }
  return { accountId, assetCode: asset.code, amount, options };
}
