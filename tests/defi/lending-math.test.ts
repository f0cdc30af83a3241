/** Money-market math against hand-computed values (the pure part of lending; see docs/defi.md). */
import { describe, expect, it } from 'vitest';
import { accrueBorrowIndex, accrueSupplyIndex, borrowRate, healthFactor, supplyRate, utilization, type RateModel } from '../../domain/defi/lending/math';
import { DecimalMoney as D } from '../../domain/money/amount';

// Aave V2 USDC-like: 0 % base, 4 % to the kink at 90 %, then +60 % to 100 %; 10 % reserve factor.
const m: RateModel = { base: '0', slope1: '0.04', slope2: '0.6', optimalUtilization: '0.9', reserveFactor: '0.1' };

describe('kinked utilization rate model', () => {
  it('utilization and the rate at, below and above the kink', () => {
    expect(utilization('600', '400').toFixed()).toBe('0.4');
    expect(utilization('0', '0').toFixed()).toBe('0');
    expect(borrowRate(m, new D('0.45')).toFixed()).toBe('0.02'); // 0.04 · 0.45/0.9
    expect(borrowRate(m, new D('0.9')).toFixed()).toBe('0.04');
    expect(borrowRate(m, new D('0.95')).toFixed()).toBe('0.34'); // 0.04 + 0.6 · 0.05/0.1
    expect(borrowRate(m, new D('1')).toFixed()).toBe('0.64');
    expect(supplyRate(m, new D('0.95')).toFixed()).toBe('0.2907'); // 0.34 · 0.95 · 0.9
  });
});

describe('indexes', () => {
  it('supply grows linearly, borrow compounds per second (Python decimal reference)', () => {
    expect(accrueSupplyIndex('1000', new D('0.05'), 86_400).toFixed(20)).toBe('1000.13698630136986301370');
    expect(accrueBorrowIndex('1', new D('0.1'), 86_400).toFixed(20)).toBe('1.00027401013622642938');
  });
});

describe('health factor', () => {
  it('Σ collateral × threshold ÷ debt; null without debt; the liquidation boundary at exactly 1', () => {
    const c = [{ valueUsd: '3400', liquidationThreshold: '0.825' }, { valueUsd: '1000', liquidationThreshold: '0.875' }];
    expect(healthFactor(c, '3680')!.toFixed()).toBe('1'); // 2805 + 875 = 3680
    expect(healthFactor(c, '3345.46')!.lt(1.1)).toBe(true); // just below a 1.1 warning threshold
    expect(healthFactor(c, '3345.45')!.gt(1.1)).toBe(true);
    expect(healthFactor(c, '3000')!.toFixed(4)).toBe('1.2267');
    expect(healthFactor(c, '0')).toBeNull();
  });
});
