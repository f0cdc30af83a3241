/**
 * The filter under construction. Each understood construct applies itself here; a construct that
 * would contradict an earlier one (a second currency, an amount range with nothing in it, dates
 * that do not overlap) is refused, and its words then count as not understood.
 */
import Decimal from 'decimal.js';
import { AI_BRIDGES, AI_CHAINS, AI_MAX_COUNTERPARTIES, AI_STATUSES, AI_TRANSACTION_TYPES, emptyFilter, MAX_BOUND_DIGITS, significantDigits, type AiCurrency, type AiStatus, type AiTransactionType, type TransactionFilter } from '../filter';
import type { Bound } from './amounts';

export type Aggregate = 'sum' | 'count' | 'average' | 'balance';

export class FilterBuilder {
  readonly types = new Set<AiTransactionType>();
  direction: 'in' | 'out' | null = null;
  private bothDirections = false;
  min: Bound | null = null;
  max: Bound | null = null;
  /** Named on its own ("in EUR", "USDC deposits"): wins over an amount's currency. */
  currency: AiCurrency | null = null;
  amountCurrency: AiCurrency | null = null;
  from: number | null = null;
  to: number | null = null;
  readonly statuses = new Set<AiStatus>();
  readonly chains = new Set<string>();
  readonly bridges = new Set<string>();
  readonly counterparties: string[] = [];
  compliance: boolean | null = null;
  sort: { field: 'amount' | 'created_at'; order: 'asc' | 'desc' } | null = null;
  limit: number | null = null;
  aggregate: Aggregate | null = null;
  /** "largest deposit" (one): max; "smallest": min. */
  superlative: 'max' | 'min' | null = null;
  howMuch = false;
  spendVerb = false;
  paymentNoun = false;

  setDirection(d: 'in' | 'out'): boolean {
    if (this.bothDirections) return true;
    if (this.direction !== null && this.direction !== d) {
      // "sent and received": both ways, which is no direction at all.
      this.direction = null;
      this.bothDirections = true;
    } else this.direction = d;
    return true;
  }

  setAmount(min: Bound | null, max: Bound | null, currency: AiCurrency | null): boolean {
    if ((min && this.min) || (max && this.max)) return false;
    // A bound is shown as a JSON number: beyond MAX_BOUND_DIGITS it would not print as written.
    if ([min, max].some((b) => b !== null && significantDigits(b.value) > MAX_BOUND_DIGITS)) return false;
    if (currency && this.amountCurrency && currency !== this.amountCurrency) return false;
    const lo = min ?? this.min;
    const hi = max ?? this.max;
    if (lo && hi) {
      const c = new Decimal(lo.value).comparedTo(hi.value);
      if (c > 0 || (c === 0 && (lo.exclusive || hi.exclusive))) return false;
    }
    this.min = lo;
    this.max = hi;
    this.amountCurrency ??= currency;
    return true;
  }

  setCurrency(c: AiCurrency): boolean {
    if (this.currency !== null && this.currency !== c) return false;
    this.currency = c;
    return true;
  }

  /** Narrows the dates to the overlap with [from, to); refuses an empty overlap. */
  setDates(from: number | null, to: number | null): boolean {
    const f = from === null ? this.from : this.from === null ? from : Math.max(from, this.from);
    const t = to === null ? this.to : this.to === null ? to : Math.min(to, this.to);
    if (f !== null && t !== null && f >= t) return false;
    this.from = f;
    this.to = t;
    return true;
  }

  setSort(field: 'amount' | 'created_at', order: 'asc' | 'desc'): boolean {
    if (this.sort && (this.sort.field !== field || this.sort.order !== order)) return false;
    this.sort = { field, order };
    return true;
  }

  setLimit(n: number): boolean {
    if (this.limit !== null && this.limit !== n) return false;
    this.limit = n;
    return true;
  }

  setAggregate(a: Aggregate): boolean {
    if (this.aggregate !== null && this.aggregate !== a) return false;
    this.aggregate = a;
    return true;
  }

  setCompliance(v: boolean): boolean {
    if (this.compliance !== null && this.compliance !== v) return false;
    this.compliance = v;
    return true;
  }

  addCounterparty(s: string): boolean {
    if (this.counterparties.includes(s)) return true;
    if (this.counterparties.length >= AI_MAX_COUNTERPARTIES) return false;
    this.counterparties.push(s);
    return true;
  }

  /** The filter, with the rules that need the whole query (see docs/ai.md). */
  build(intentHints: { balanceWithHave: boolean; whatSpend: boolean }): TransactionFilter {
    const f = emptyFilter();
    const types = new Set(this.types);
    // A named bridge protocol makes "transfers" bridge transfers; "payments to Bob" are transfers.
    if (this.bridges.size > 0 && types.delete('transfer')) types.add('cross_chain_transfer');
    if (this.paymentNoun && this.counterparties.length > 0 && types.size === 0) types.add('transfer');
    f.types = AI_TRANSACTION_TYPES.filter((t) => types.has(t));
    f.direction = this.direction;
    if (this.min) {
      f.amountMin = this.min.value;
      f.amountMinExclusive = this.min.exclusive;
    }
    if (this.max) {
      f.amountMax = this.max.value;
      f.amountMaxExclusive = this.max.exclusive;
    }
    f.currency = this.currency ?? this.amountCurrency;
    f.currencyIsAsset = this.currency !== null;
    f.dateFrom = this.from === null ? null : new Date(this.from).toISOString();
    f.dateTo = this.to === null ? null : new Date(this.to).toISOString();
    f.statuses = AI_STATUSES.filter((s) => this.statuses.has(s));
    f.chains = AI_CHAINS.filter((c) => this.chains.has(c));
    f.bridges = AI_BRIDGES.filter((b) => this.bridges.has(b));
    f.counterparties = [...this.counterparties];
    f.hasComplianceFlags = this.compliance;
    f.sort = this.sort;
    f.limit = this.limit;
    // An aggregate word wins ("how much USDC do I hold": balance); "how much" alone is a sum, or a
    // balance with "have" ("how much EUR do I have", not "how much have I spent").
    const howMuch = this.howMuch ? (intentHints.balanceWithHave ? 'balance' : 'sum') : null;
    f.intent = this.aggregate ?? howMuch ?? this.superlative ?? (intentHints.whatSpend ? 'sum' : 'list');
    return f;
  }
}
