import Decimal from 'decimal.js';

/** Sum of decimal strings, kept at the largest scale among them ("1.50" + "2" → "3.50"). */
export function sumAmounts(amounts: string[]): string {
  let total = new Decimal(0);
  let scale = 0;
  for (const a of amounts) {
    const d = new Decimal(a);
    total = total.plus(d);
    scale = Math.max(scale, d.decimalPlaces(), (a.split('.')[1] ?? '').length);
  }
  return total.toFixed(scale);
}

export function toBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  return v === 'true' || v === '1';
}
