/**
 * USDC amounts in x402: atomic units (6 decimals) as integer strings on the wire, USDC decimal
 * strings on the ledger. Conversions are exact (decimal.js), never floats.
 */
import Decimal from 'decimal.js';
import { DomainError } from '../platform/errors';

export const USDC_DECIMALS = 6;
const SCALE = new Decimal(10).pow(USDC_DECIMALS);

/** "48000" → "0.048000" */
export function atomicToUsdc(atomic: string): string {
  return new Decimal(atomic).div(SCALE).toFixed(USDC_DECIMALS);
}

/** "0.048" → "48000"; refuses more than 6 decimals or a negative. */
export function usdcToAtomic(usdc: string, pointer?: string): string {
  if (!/^[0-9]{1,20}(\.[0-9]{1,6})?$/.test(usdc)) throw new DomainError('VALIDATION_ERROR', `"${usdc}" is not a USDC amount with at most 6 decimals`, pointer);
  return new Decimal(usdc).mul(SCALE).toFixed(0);
}

/** A price in US cents as atomic USDC (1 cent = 10,000 units; USDC is taken at par with the dollar). */
export function centsToAtomic(cents: number): string {
  return new Decimal(cents).mul(SCALE).div(100).toFixed(0);
}
