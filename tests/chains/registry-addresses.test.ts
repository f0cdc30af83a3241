import { describe, expect, it } from 'vitest';
import { isValidAddress, toChecksumAddress, validateAddress } from '../../domain/chains/addresses';
import { CHAINS, chainsForAsset, findToken, getChain, getToken, homeChain, TOKENS, tokenForAsset } from '../../domain/chains/registry';
import { DomainError } from '../../domain/platform/errors';
import { statusForCode } from '../../api/error-status';

/** The refusal with the HTTP status the API gives its code (api/error-status.ts). */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const e = err as DomainError;
    return { code: e.code, message: e.message, pointer: e.pointer, status: statusForCode(e.code) };
  }
  throw new Error('expected a refusal');
}

describe('chain registry', () => {
  it('lists the chains with their CAIP-2 ids, kinds, finality and gas tokens', () => {
    expect(Object.fromEntries(CHAINS.map((c) => [c.id, c.caip2]))).toEqual({
      ethereum: 'eip155:1',
      polygon: 'eip155:137',
      arbitrum: 'eip155:42161',
      optimism: 'eip155:10',
      base: 'eip155:8453',
      avalanche: 'eip155:43114',
      bsc: 'eip155:56',
      solana: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      bitcoin: 'bip122:000000000019d6689c085ae165831e93',
    });
    for (const c of CHAINS) {
      if (c.kind === 'evm') expect(c.caip2).toBe(`eip155:${c.evmChainId}`);
      expect(c.blockTimeMs).toBeGreaterThan(0);
      expect(c.finalityConfirmations).toBeGreaterThanOrEqual(1);
    }
    expect(getChain('polygon').nativeToken).toEqual({ symbol: 'POL', decimals: 18 });
    expect(getChain('bitcoin')).toMatchObject({ kind: 'bitcoin', finalityConfirmations: 6, blockTimeMs: 600_000 });
  });

  it('finds a chain by id, CAIP-2 id, name or alias, case-insensitively', () => {
    expect(getChain('Ethereum').id).toBe('ethereum');
    expect(getChain('eip155:42161').id).toBe('arbitrum');
    expect(getChain('BNB Smart Chain').id).toBe('bsc');
    expect(getChain('matic').id).toBe('polygon');
    expect(getChain('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp').id).toBe('solana');
  });

  it('refuses an unknown chain or token with a 422 and a pointer', () => {
    const c = refusal(() => getChain('dogechain', '/source_chain'));
    expect(c).toMatchObject({ status: 422, code: 'UNKNOWN_CHAIN', pointer: '/source_chain' });
    const t = refusal(() => getToken('polygon', 'ETH', '/token'));
    expect(t).toMatchObject({ status: 422, code: 'UNKNOWN_TOKEN', pointer: '/token' });
    expect(t.message).toContain('USDC');
    expect(refusal(() => getToken('nowhere', 'USDC', '/token', '/chain'))).toMatchObject({ code: 'UNKNOWN_CHAIN', pointer: '/chain' });
  });

  it('has per-chain decimals mapped to ledger assets', () => {
    expect(getToken('ethereum', 'usdc')).toMatchObject({ assetCode: 'USDC', decimals: 6, native: false });
    expect(getToken('bsc', 'USDC')).toMatchObject({ assetCode: 'USDC', decimals: 18 });
    expect(getToken('bsc', 'USDT').decimals).toBe(18);
    expect(getToken('solana', 'WETH')).toMatchObject({ assetCode: 'WETH', decimals: 8 });
    expect(getToken('arbitrum', 'ETH')).toMatchObject({ native: true, address: null, decimals: 18 });
    expect(getToken('ethereum', 'WBTC').decimals).toBe(8);
    // By contract address too.
    expect(findToken('ethereum', '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48')?.symbol).toBe('USDC');
    for (const sym of ['USDC', 'USDT', 'ETH', 'WETH', 'WBTC', 'DAI']) expect(tokenForAsset('ethereum', sym)).not.toBeNull();
    expect(tokenForAsset('solana', 'ETH')).toBeNull();
  });

  it('knows home chains and where an asset exists', () => {
    expect(homeChain('ETH')).toBe('ethereum');
    expect(homeChain('usdc')).toBe('ethereum');
    expect(homeChain('BTC')).toBe('bitcoin');
    expect(homeChain('USD')).toBeNull();
    expect(chainsForAsset('USDC')).toEqual(['ethereum', 'polygon', 'arbitrum', 'optimism', 'base', 'avalanche', 'bsc', 'solana']);
    expect(chainsForAsset('BTC')).toEqual(['bitcoin']);
  });

  it('every EVM token contract in the registry carries a valid EIP-55 checksum; solana mints are 32-byte keys', () => {
    for (const [chain, tokens] of Object.entries(TOKENS)) {
      for (const tok of tokens) {
        if (tok.address) expect(validateAddress(chain, tok.address)).toBe(tok.address);
      }
    }
  });
});

describe('addresses', () => {
  // The test vectors of EIP-55 itself.
  const EIP55 = [
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('EIP-55: the checksum of each vector is the vector itself, and a valid one is accepted on every EVM chain', () => {
    for (const v of EIP55) {
      expect(toChecksumAddress(v.toLowerCase())).toBe(v);
      for (const chain of ['ethereum', 'polygon', 'arbitrum', 'optimism', 'base', 'avalanche', 'bsc']) expect(validateAddress(chain, v)).toBe(v);
    }
  });

  it('EIP-55: lower- or upper-case addresses carry no checksum and come back checksummed; a wrong mixed case is refused', () => {
    expect(validateAddress('ethereum', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(validateAddress('base', '0x' + '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'.toUpperCase())).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    // One letter's case flipped.
    const bad = refusal(() => validateAddress('ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', '/recipient_address'));
    expect(bad).toMatchObject({ status: 422, code: 'INVALID_ADDRESS', pointer: '/recipient_address' });
    expect(bad.message).toContain('checksum');
    for (const x of ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0xZZAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '', 42]) {
      expect(isValidAddress('ethereum', x)).toBe(false);
    }
  });

  it('Solana: base58 32-byte public keys', () => {
    expect(validateAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(validateAddress('solana', '11111111111111111111111111111111')).toBe('11111111111111111111111111111111');
    // 0, O, I and l are not base58; a short key decodes to fewer than 32 bytes.
    expect(refusal(() => validateAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10'))).toMatchObject({ code: 'INVALID_ADDRESS' });
    expect(refusal(() => validateAddress('solana', '1111111111111111111111111111111111'))).toMatchObject({ code: 'INVALID_ADDRESS' });
    expect(isValidAddress('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwy')).toBe(false);
    // An EVM address is not a Solana address and vice versa.
    expect(isValidAddress('solana', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe(false);
    expect(isValidAddress('ethereum', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(false);
  });

  it('Bitcoin: BIP-173 / BIP-350 segwit and base58check legacy addresses', () => {
    // BIP-173 example (upper case is valid bech32) and BIP-350 taproot (bech32m).
    expect(validateAddress('bitcoin', 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toBe('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
    expect(validateAddress('bitcoin', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBe('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0');
    // A v1 program checksummed with bech32 instead of bech32m (invalid since BIP-350), a flipped character, mixed case.
    expect(isValidAddress('bitcoin', 'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7k7grplx')).toBe(false);
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
    expect(isValidAddress('bitcoin', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7KV8F3T4')).toBe(false);
    // Genesis coinbase P2PKH and a P2SH address; one changed character breaks the checksum.
    expect(validateAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toBe('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
    expect(validateAddress('bitcoin', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy');
    expect(isValidAddress('bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb')).toBe(false);
  });

  it('an unknown chain is UNKNOWN_CHAIN, not INVALID_ADDRESS', () => {
    expect(refusal(() => validateAddress('tron', 'TXYZ'))).toMatchObject({ code: 'UNKNOWN_CHAIN' });
  });
});
