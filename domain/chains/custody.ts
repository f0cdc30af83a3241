/**
 * The platform's custodial address of a customer account on a chain: where the account's tokens
 * of that chain book sit, and the default sender/recipient of its on-chain legs when a request
 * names none (the v2 bridge body has no addresses). Derived deterministically from the account
 * id and chain, so it is stable and needs no table: EVM = the last 20 bytes of keccak256 (as an
 * address is derived from a key), checksummed; solana = base58 of a 32-byte SHA-256 digest;
 * bitcoin = P2WPKH (bech32) of a 20-byte digest. A production deployment would take these from
 * its custody provider's deposit-address API instead.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base58, bech32 } from '@scure/base';
import { toChecksumAddress } from './addresses';
import { getChain } from './registry';

export function custodyAddress(accountId: string, chain: string): string {
  const c = getChain(chain);
  const seed = new TextEncoder().encode(`custody:${c.caip2}:${accountId}`);
  switch (c.kind) {
    case 'evm':
      return toChecksumAddress(bytesToHex(keccak_256(seed).slice(12)));
    case 'solana':
      return base58.encode(sha256(seed));
    case 'bitcoin':
      return bech32.encode('bc', [0, ...bech32.toWords(sha256(seed).slice(0, 20))]);
  }
}
