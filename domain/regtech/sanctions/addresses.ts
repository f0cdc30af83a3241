/**
 * Digital-currency addresses on the OFAC SDN list. OFAC writes them in an entry's remarks
 * ("Digital Currency Address - ETH 0x…; alt. Digital Currency Address - XBT 1…"); they are loaded
 * with the list (load.ts) and each belongs to its entry's name.
 *
 * Screening an address is an exact comparison of normalised forms, never a fuzzy score (a wallet
 * one character away is another wallet): EVM addresses (0x + 40 hex) compare case-insensitively,
 * as viem's getAddress (EIP-55) of the lower-case form, so a listed address written with a wrong
 * checksum still counts; bech32 addresses (bc1…, ltc1…) in lower case, being case-insensitive by
 * definition; everything else (base58, XRP, …) exactly as written. The same normalisation applies
 * to the list and to the screened address, so an EVM address is found whatever its tag (ETH, USDT,
 * USDC…): one key controls it on every EVM chain. Screening: screen.ts (screenAddress).
 */
import { getAddress } from 'viem';

export interface ListedAddress {
  /** Normalised for comparison. */
  address: string;
  /** OFAC's currency tag (ETH, XBT, USDT, XRP, …). */
  currency: string;
  /** As the list writes it. */
  listedAs: string;
}

const EVM = /^0x[0-9a-fA-F]{40}$/;
const BECH32 = /^(bc|tb|ltc)1[02-9ac-hj-np-z]+$/i;

export function normaliseAddress(address: string): string {
  const a = address.trim();
  if (EVM.test(a)) return getAddress(a.toLowerCase());
  if (BECH32.test(a)) return a.toLowerCase();
  return a;
}

// The address runs to the next separator; a remark's last one may carry its closing full stop.
const LISTED = /Digital Currency Address - ([A-Za-z0-9]+) ([^\s;,]+)/g;

/** The addresses in an entry's remarks, each (address, currency) once. */
export function listedAddresses(remarks: string | null): ListedAddress[] {
  const out = new Map<string, ListedAddress>();
  for (const m of (remarks ?? '').matchAll(LISTED)) {
    const listedAs = m[2].replace(/\.+$/, '');
    if (!listedAs) continue;
    const a = { address: normaliseAddress(listedAs), currency: m[1].toUpperCase(), listedAs };
    out.set(`${a.currency} ${a.address}`, a);
  }
  return [...out.values()];
}
