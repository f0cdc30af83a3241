// HTTP-free checks of the JSON-number rules the DeFi operations apply (domain/defi/operations.ts).
import { describe, expect, it } from 'vitest';
import { decimalFromNumber, slippageBpsOfFraction } from '../../domain/defi/operations';
import { DomainError } from '../../domain/platform/errors';
import { refusal } from '../helpers/refusal';

describe('decimalFromNumber', () => {
  it('keeps a plain decimal as written', () => {
    expect(decimalFromNumber(12.5, '/max_gas_price_gwei', 9)).toBe('12.5');
    expect(decimalFromNumber(0.000001, '/max_gas_price_gwei', 9)).toBe('0.000001');
  });
  it('refuses exponent notation, negatives and too many decimals, at the pointer', () => {
    for (const n of [1e-10, -1, 1.0000000001, Number.POSITIVE_INFINITY]) {
      const e = refusal(() => decimalFromNumber(n, '/max_gas_price_gwei', 9));
      expect(e.code).toBe('INVALID_NUMBER');
      expect(e.pointer).toBe('/max_gas_price_gwei');
    }
  });
});

describe('slippageBpsOfFraction', () => {
  it('defaults to 50 bps and converts a fraction at basis-point resolution', () => {
    expect(slippageBpsOfFraction(undefined)).toBe(50);
    expect(slippageBpsOfFraction(0.005)).toBe(50);
    expect(slippageBpsOfFraction(0.5)).toBe(5000);
    expect(slippageBpsOfFraction(0)).toBe(0);
  });
  it('refuses more than 0.5 and finer than a basis point', () => {
    expect(refusal(() => slippageBpsOfFraction(0.5001)).code).toBe('INVALID_SLIPPAGE');
    expect(refusal(() => slippageBpsOfFraction(0.00001)).code).toBe('INVALID_NUMBER');
  });
});
