/**
 * Address validation per chain kind, with the networks' own encodings:
 * - EVM: 0x + 40 hex; a mixed-case address must carry a valid EIP-55 checksum (keccak256 of the
 *   lower-case hex); all-lower or all-upper has none to check. Returned checksummed.
 * - Solana: base58 of a 32-byte ed25519 public key. Returned as given (base58 is canonical).
 * - Bitcoin: bech32 (segwit v0, bc1q...) / bech32m (v1+, bc1p...) with the witness program
 *   lengths BIP-141/350 allow, or base58check P2PKH (1...) / P2SH (3...). Bech32 is returned in
 *   lower case.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import { DomainError } from '../platform/errors';
import { getChain } from './registry';

const base58check = createBase58check(sha256);
const utf8 = new TextEncoder();

function invalid(chain: string, message: string, pointer: string): never {
  throw new DomainError('INVALID_ADDRESS', `Invalid ${chain} address: ${message}`, pointer);
}

/** EIP-55 mixed-case checksum encoding of a 20-byte hex address (with or without 0x). */
export function toChecksumAddress(address: string): string {
  const hex = address.replace(/^0x/i, '').toLowerCase();
  const hash = keccak_256(utf8.encode(hex));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    // The i-th nibble of the hash decides the case of the i-th hex character.
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? hex[i].toUpperCase() : hex[i];
  }
  return out;
}

function evm(address: string, chain: string, pointer: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) invalid(chain, 'expected 0x followed by 40 hexadecimal characters', pointer);
  const body = address.slice(2);
  const checksummed = toChecksumAddress(body);
  const mixed = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixed && checksummed !== address) invalid(chain, 'EIP-55 checksum mismatch (check the letter case)', pointer);
  return checksummed;
}

function solana(address: string, chain: string, pointer: string): string {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) invalid(chain, 'expected a base58 public key of 32 to 44 characters', pointer);
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(address);
  } catch {
    return invalid(chain, 'not valid base58', pointer);
  }
  if (bytes.length !== 32) invalid(chain, `a public key is 32 bytes, this decodes to ${bytes.length}`, pointer);
  return address;
}

function bitcoin(address: string, chain: string, pointer: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('bc1')) {
    if (address !== lower && address !== address.toUpperCase()) invalid(chain, 'bech32 must not mix upper and lower case', pointer);
    let decoded: { prefix: string; words: number[] };
    const version = lower.charAt(3);
    try {
      // Witness v0 uses bech32, v1 and later bech32m (BIP-350); the version is the first data character.
      decoded = version === 'q' ? bech32.decode(lower as `${string}1${string}`, 90) : bech32m.decode(lower as `${string}1${string}`, 90);
    } catch {
      return invalid(chain, 'bech32 checksum or encoding is wrong', pointer);
    }
    if (decoded.prefix !== 'bc') invalid(chain, 'not a mainnet (bc) address', pointer);
    const [witnessVersion, ...rest] = decoded.words;
    if (witnessVersion === undefined || witnessVersion > 16) invalid(chain, 'bad witness version', pointer);
    let program: Uint8Array;
    try {
      program = bech32.fromWords(rest);
    } catch {
      return invalid(chain, 'bad witness program padding', pointer);
    }
    if (program.length < 2 || program.length > 40) invalid(chain, 'witness program must be 2 to 40 bytes', pointer);
    if (witnessVersion === 0 && program.length !== 20 && program.length !== 32) invalid(chain, 'a v0 witness program is 20 or 32 bytes', pointer);
    return lower;
  }
  if (!/^[13][1-9A-HJ-NP-Za-km-z]{25,34}$/.test(address)) invalid(chain, 'expected a bech32 (bc1...) or base58check (1... / 3...) address', pointer);
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return invalid(chain, 'base58check checksum is wrong', pointer);
  }
  if (payload.length !== 21 || (payload[0] !== 0x00 && payload[0] !== 0x05)) invalid(chain, 'not a P2PKH or P2SH mainnet address', pointer);
  return address;
}

/**
 * The address in its normal form for the chain, or a 422 INVALID_ADDRESS pointing at the field.
 * The chain is looked up first (422 UNKNOWN_CHAIN).
 */
export function validateAddress(chain: string, address: unknown, pointer = '/address'): string {
  const c = getChain(chain);
  if (typeof address !== 'string' || address.trim() === '') invalid(c.id, 'an address string is required', pointer);
  const a = (address as string).trim();
  switch (c.kind) {
    case 'evm':
      return evm(a, c.id, pointer);
    case 'solana':
      return solana(a, c.id, pointer);
    case 'bitcoin':
      return bitcoin(a, c.id, pointer);
  }
}

/** true when validateAddress would accept the address. */
export function isValidAddress(chain: string, address: unknown): boolean {
  try {
    validateAddress(chain, address);
    return true;
  } catch {
    return false;
  }
}
