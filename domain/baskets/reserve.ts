/**
 * Composing and decomposing basket units, and the reserve that backs them.
 *
 * The reserve rule: for each component, the basket's reserve ledger account holds exactly
 * reserveTarget(outstanding units) = ceil(outstanding x amount, component precision). Composing u
 * units takes target(n + u) - target(n) of each component from the account; decomposing gives
 * back target(n) - target(n - u). So the reserve is exact after every operation, a compose and a
 * decompose of the same units at the same supply cancel out, and no sequence of operations can
 * take out more than went in. Each operation is one balanced ledger entry:
 *
 *   component i: debit customer (Δᵢ) / credit basket_reserve:<basket> (Δᵢ)   (compose; reversed to decompose)
 *   basket asset: debit basket_issuance:<basket> (u) / credit customer (u)   (compose; reversed to decompose)
 *
 * The basket's state row is locked first, so concurrent operations on one basket serialise on it.
 */
import { ensureCustomerLedgerAccount, getAccount } from '../accounts';
import { statusRefusal } from '../accounts/status';
import { getAsset } from '../assets';
import { withTransaction, type Queryable } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { clientIdempotencyKey, internalLedgerAccountId, LedgerError, postEntry, type LineInput } from '../ledger';
import { DecimalMoney as D, parseRequestAmount } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { lockBasket, type Basket } from './definitions';

export type BasketOperationKind = 'compose' | 'decompose';

export interface BasketOperation {
  id: string;
  kind: BasketOperationKind;
  environment: Environment;
  userId: string;
  accountId: string;
  basketCode: string;
  units: string;
  version: number;
  /** What left the account (compose) or reached it (decompose), per component. */
  components: Array<{ assetCode: string; amount: string }>;
  entryId: string;
  createdAt: Date;
}

/** ceil(units x amount) at the component's precision: what the reserve holds for `units`. */
export function reserveTarget(units: string, amount: string, precision: number): string {
  return new D(units).times(amount).toDecimalPlaces(precision, D.ROUND_UP).toFixed(precision);
}

/** Per component, what an operation of `units` moves when `outstanding` units are out before it. */
export function componentDeltas(basket: Pick<Basket, 'components'>, precisions: Map<string, number>, outstanding: string, units: string, kind: BasketOperationKind) {
  const after = kind === 'compose' ? new D(outstanding).plus(units) : new D(outstanding).minus(units);
  return basket.components.map((c) => {
    const p = precisions.get(c.assetCode)!;
    const before = new D(reserveTarget(outstanding, c.amount, p));
    const next = new D(reserveTarget(after.toFixed(), c.amount, p));
    return { assetCode: c.assetCode, amount: before.minus(next).abs().toFixed(p) };
  });
}

export function reserveAccount(environment: Environment, basketCode: string, assetCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode, code: `basket_reserve:${basketCode}`, name: `${basketCode} reserve ${assetCode}`, normalBalance: 'credit', noOverdraft: true },
    c,
  );
}

export function issuanceAccount(environment: Environment, basketCode: string, c: Queryable): Promise<string> {
  return internalLedgerAccountId(
    { environment, assetCode: basketCode, code: `basket_issuance:${basketCode}`, name: `${basketCode} units issued`, normalBalance: 'debit', noOverdraft: true },
    c,
  );
}

export async function componentPrecisions(basket: Pick<Basket, 'components'>, client?: Queryable): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const c of basket.components) {
    const a = await getAsset(c.assetCode, client);
    if (!a) throw new DomainError('ASSET_UNAVAILABLE', `Component ${c.assetCode} is not an active asset`);
    out.set(c.assetCode, a.precision);
  }
  return out;
}

export interface BasketOperationInput {
  userId: string;
  environment: Environment;
  accountId: string;
  basketCode: unknown;
  amount: unknown;
  idempotencyKey?: string;
}

/** Compose (assets → basket units) or decompose (units → assets) on one of the caller's accounts. */
export async function operateBasket(kind: BasketOperationKind, input: BasketOperationInput): Promise<BasketOperation> {
  if (typeof input.basketCode !== 'string') throw new DomainError('INVALID_INPUT', 'basket_code must be a string', '/basket_code');
  const asset = await getAsset(input.basketCode);
  if (!asset || asset.type !== 'basket') throw new DomainError('UNKNOWN_BASKET', `No basket with code ${input.basketCode.slice(0, 32)}`, '/basket_code');
  const units = parseRequestAmount(input.amount, asset);
  const idempotencyKey = input.idempotencyKey
    ? clientIdempotencyKey(input.userId, `basket-${kind}:${input.accountId}`, input.idempotencyKey)
    : `basket-${kind}:${newId('op')}`;

  return withTransaction(async (c) => {
    const account = await getAccount(input.userId, input.environment, input.accountId, c);
    if (!account) throw new DomainError('NOT_FOUND', 'Account not found');
    // Under the basket's lock, so a concurrent retry with the same key finds the first one's record.
    const basket = await lockBasket(asset.code, input.environment, c);
    const replay = await findOperation(input.environment, idempotencyKey, c);
    if (replay) return replay;
    const refusal = statusRefusal('from', account.status);
    if (refusal) throw new DomainError(refusal.code, refusal.message.replace('source account', 'account'));
    const customerBasket = await ensureCustomerLedgerAccount(account.id, basket.code, c);
    const legs = await basketLegs(c, {
      basket,
      units,
      kind,
      counterparty: (assetCode) => ensureCustomerLedgerAccount(account.id, assetCode, c),
      holder: customerBasket,
    });
    // What the account must hold before anything moves, so the refusal names the asset.
    const needs = kind === 'compose' ? legs.deltas.filter((d) => new D(d.amount).gt(0)) : [{ assetCode: basket.code, amount: units }];
    await requireAvailable(account.id, needs, c);
    const { deltas, lines, precisions } = legs;

    const id = newId('bop');
    const entry = await postEntry(
      {
        environment: input.environment,
        idempotencyKey,
        type: `basket_${kind}`,
        description: `${kind === 'compose' ? 'Compose' : 'Decompose'} ${units} ${basket.code}`,
        reference: id,
        lines,
        userId: input.userId,
        metadata: { basket_operation_id: id, basket_code: basket.code, version: basket.version, units },
      },
      c,
    ).catch((err) => {
      if (err instanceof LedgerError) throw new DomainError(err.code, err.message);
      throw err;
    });
    await recordOutstanding(c, basket, legs.outstandingAfter);
    const { rows } = await c.query<OperationRow>(
      `INSERT INTO basket_operations (id, environment, user_id, account_id, basket_code, kind, units, version, components, entry_id, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${OPERATION_COLUMNS}`,
      [id, input.environment, input.userId, account.id, basket.code, kind, units, basket.version,
        JSON.stringify(deltas.map((d) => ({ asset_code: d.assetCode, amount: d.amount }))), entry.id, idempotencyKey],
    );
    const op = toOperation(rows[0], precisions, asset.precision);
    await writeOutboxEvent(c, {
      type: kind === 'compose' ? 'basket.composed' : 'basket.decomposed',
      environment: input.environment,
      userId: input.userId,
      aggregateType: 'basket_operation',
      aggregateId: op.id,
      data: basketOperationEventData(op),
    });
    return op;
  });
}

/**
 * The ledger lines of issuing (compose) or redeeming (decompose) `units` of a LOCKED basket
 * (lockBasket): each component's reserve delta against `counterparty(asset)` (the customer's own
 * account for compose/decompose; the platform's desk when a buy acquires the components), and
 * the units against the issuance account and `holder`. The caller posts them in its entry and then
 * calls recordOutstanding with outstandingAfter in the same transaction.
 */
export async function basketLegs(
  c: Queryable,
  input: { basket: Basket; units: string; kind: BasketOperationKind; counterparty: (assetCode: string) => Promise<string>; holder: string },
): Promise<{ lines: LineInput[]; deltas: Array<{ assetCode: string; amount: string }>; precisions: Map<string, number>; outstandingAfter: string }> {
  const { basket, units, kind } = input;
  const precisions = await componentPrecisions(basket, c);
  const deltas = componentDeltas(basket, precisions, basket.outstanding, units, kind);
  const lines: LineInput[] = [];
  for (const d of deltas) {
    if (new D(d.amount).isZero()) continue;
    const other = await input.counterparty(d.assetCode);
    const reserve = await reserveAccount(basket.environment, basket.code, d.assetCode, c);
    const [from, to] = kind === 'compose' ? [other, reserve] : [reserve, other];
    lines.push({ accountId: from, direction: 'debit', amount: d.amount }, { accountId: to, direction: 'credit', amount: d.amount });
  }
  const issuance = await issuanceAccount(basket.environment, basket.code, c);
  const [from, to] = kind === 'compose' ? [issuance, input.holder] : [input.holder, issuance];
  lines.push({ accountId: from, direction: 'debit', amount: units }, { accountId: to, direction: 'credit', amount: units });
  const after = kind === 'compose' ? new D(basket.outstanding).plus(units) : new D(basket.outstanding).minus(units);
  if (after.isNegative()) throw new DomainError('INSUFFICIENT_FUNDS', `Only ${basket.outstanding} ${basket.code} are outstanding`, '/amount', { asset_code: basket.code });
  return { lines, deltas, precisions, outstandingAfter: after.toFixed() };
}

/** Stores the basket's outstanding units after an operation (same transaction, basket locked). */
export async function recordOutstanding(c: Queryable, basket: Pick<Basket, 'environment' | 'code'>, outstanding: string): Promise<void> {
  await c.query('UPDATE basket_states SET outstanding = $3, updated_at = now() WHERE environment = $1 AND basket_code = $2', [basket.environment, basket.code, outstanding]);
}

async function requireAvailable(accountId: string, needs: Array<{ assetCode: string; amount: string }>, c: Queryable): Promise<void> {
  if (needs.length === 0) return;
  const { rows } = await c.query<{ asset_code: string; available: string }>(
    `SELECT asset_code, sum(credits_posted - debits_posted - debits_pending)::text AS available
       FROM ledger_accounts WHERE account_id = $1 AND asset_code = ANY($2::text[]) AND chain = '' GROUP BY asset_code`,
    [accountId, needs.map((n) => n.assetCode)],
  );
  const available = new Map(rows.map((r) => [r.asset_code, r.available]));
  for (const n of needs) {
    const have = available.get(n.assetCode) ?? '0';
    if (new D(have).lt(n.amount)) {
      throw new DomainError('INSUFFICIENT_FUNDS', `Insufficient ${n.assetCode} balance: ${n.amount} needed, ${new D(have).toFixed()} available`, '/amount', {
        asset_code: n.assetCode,
        required: n.amount,
        available: new D(have).toFixed(),
      });
    }
  }
}

type OperationRow = {
  id: string; kind: BasketOperationKind; environment: Environment; user_id: string; account_id: string; basket_code: string;
  units: string; version: number; components: Array<{ asset_code: string; amount: string }>; entry_id: string; created_at: Date;
};
const OPERATION_COLUMNS = 'id, kind, environment, user_id, account_id, basket_code, units::text AS units, version, components, entry_id, created_at';

function toOperation(r: OperationRow, precisions?: Map<string, number>, unitPrecision?: number): BasketOperation {
  return {
    id: r.id,
    kind: r.kind,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    basketCode: r.basket_code,
    units: unitPrecision === undefined ? new D(r.units).toFixed() : new D(r.units).toFixed(unitPrecision),
    version: r.version,
    components: r.components.map((x) => ({ assetCode: x.asset_code, amount: precisions?.has(x.asset_code) ? new D(x.amount).toFixed(precisions.get(x.asset_code)!) : x.amount })),
    entryId: r.entry_id,
    createdAt: r.created_at,
  };
}

async function findOperation(environment: Environment, idempotencyKey: string, c: Queryable): Promise<BasketOperation | null> {
  const { rows } = await c.query<OperationRow>(`SELECT ${OPERATION_COLUMNS} FROM basket_operations WHERE environment = $1 AND idempotency_key = $2`, [environment, idempotencyKey]);
  return rows[0] ? toOperation(rows[0]) : null;
}

export function basketOperationEventData(op: BasketOperation) {
  return {
    operation_id: op.id,
    account_id: op.accountId,
    basket_code: op.basketCode,
    amount: op.units,
    version: op.version,
    components: op.components.map((c) => ({ asset_code: c.assetCode, amount: c.amount })),
    entry_id: op.entryId,
    created_at: op.createdAt.toISOString(),
  };
}
