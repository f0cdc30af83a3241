/**
 * What the basket endpoints return: a basket with its value and derived weights at the latest
 * rates (valuation.ts), and operators' creation with the input checks that are rules, not wire.
 */
import type { Principal } from '../auth/principal';
import { DomainError } from '../platform/errors';
import type { Environment } from '../platform/environment';
import { latestRates } from '../rates';
import { createBasket, getBasket, listBaskets, REBALANCE_FREQUENCIES, type Basket, type RebalanceFrequency } from './definitions';
import { valueBasket, type BasketValuation } from './valuation';

export interface BasketView {
  basket: Basket;
  /** Null when a component has no rate yet. */
  valuation: BasketValuation | null;
}

async function withValuation(baskets: Basket[]): Promise<BasketView[]> {
  const rates = await latestRates();
  return baskets.map((basket) => {
    const priced = basket.components.map((c) => ({ assetCode: c.assetCode, amount: c.amount, rate: rates.get(c.assetCode) }));
    if (priced.some((p) => !p.rate)) return { basket, valuation: null };
    return { basket, valuation: valueBasket(priced.map((p) => ({ ...p, rate: p.rate! }))) };
  });
}

export async function basketViews(environment: Environment): Promise<BasketView[]> {
  return withValuation(await listBaskets(environment));
}

export async function basketView(code: string, environment: Environment): Promise<BasketView> {
  return (await withValuation([await getBasket(code, environment)]))[0];
}

export interface CreateBasketRequest {
  code: string;
  name: string;
  description?: string | null;
  precision?: number;
  rebalance_frequency?: string;
  initial_value_usd?: string;
  components: Array<{ asset_code: string; weight: string }>;
}

/** An operator defines a basket (the route is operator-only; this re-checks, as every rule lives here). */
export async function defineBasket(p: Principal, body: CreateBasketRequest): Promise<BasketView> {
  if (!p.isAdmin) throw new DomainError('ADMIN_REQUIRED', 'Only platform operators define baskets');
  if (!/^[A-Z][A-Z0-9]{2,11}$/.test(body.code)) throw new DomainError('INVALID_CODE', 'code must be 3 to 12 capital letters or digits, starting with a letter', '/code');
  const frequency = body.rebalance_frequency ?? 'monthly';
  if (!(REBALANCE_FREQUENCIES as readonly string[]).includes(frequency)) {
    throw new DomainError('INVALID_INPUT', `rebalance_frequency must be one of ${REBALANCE_FREQUENCIES.join(', ')}`, '/rebalance_frequency');
  }
  if (body.components.length < 2) throw new DomainError('BASKET_TOO_SMALL', 'A basket needs at least two components', '/components');
  const basket = await createBasket({
    code: body.code,
    name: body.name,
    description: body.description ?? null,
    precision: body.precision,
    rebalanceFrequency: frequency as RebalanceFrequency,
    initialValueUsd: body.initial_value_usd,
    components: body.components.map((c) => ({ assetCode: c.asset_code, weight: c.weight })),
    createdBy: p.userId,
  });
  return basketView(basket.code, p.environment);
}
