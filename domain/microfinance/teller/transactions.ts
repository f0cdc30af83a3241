/**
 * Cash transactions at the counter, within the calling teller's open session at their office:
 *
 * - cash_deposit: the customer hands in cash: Dr till / Cr customer account;
 * - cash_withdrawal: Dr customer account / Cr till, refused beyond the customer's available
 *   balance (INSUFFICIENT_FUNDS) and beyond the till's cash (TILL_INSUFFICIENT_CASH). Both are the
 *   ledger's no-overdraft rule, checked under its row locks, so parallel withdrawals pass exactly
 *   as far as the money goes;
 * - currency_exchange: a walk-in exchange, cash for cash: the customer hands `amount` of
 *   `currency` and receives `to_amount` of `to_currency` (exchange.ts: mid rate from the rates
 *   table less the office's spread, half-even to the currency's precision). Both legs go through
 *   the FX position account of each currency: Dr till(from) / Cr FX(from) and Dr FX(to) / Cr
 *   till(to), one entry balanced per asset. `account_id`, when given, only names a known customer
 *   (recorded for the receipt); no customer balance moves.
 *
 * The session must be open and the caller's (another teller's: 404), and the caller still a teller
 * of the session's office (403 TELLER_NOT_IN_OFFICE). The transaction holds the session row FOR
 * SHARE, so closing (FOR UPDATE) waits for transactions in flight and sees final tills.
 */
import { ensureCustomerLedgerAccount, getAccount } from '../../accounts';
import { getAsset, type Asset } from '../../assets';
import type { Principal } from '../../auth/principal';
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { clientIdempotencyKey } from '../../ledger';
import { DecimalMoney, parseRequestAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { latestRate } from '../../rates';
import { exchangeQuote } from './exchange';
import { cr, dr, fxPositionAccount, post, tillAccount } from './ledger';
import { hasRole } from './offices';
import { visibleSession } from './sessions';

export type TellerTransactionType = 'cash_deposit' | 'cash_withdrawal' | 'currency_exchange';
export const TELLER_TRANSACTION_TYPES: readonly TellerTransactionType[] = ['cash_deposit', 'cash_withdrawal', 'currency_exchange'];

export interface TellerTransactionInput {
  session_id: string;
  type: TellerTransactionType;
  account_id?: string;
  amount: string;
  currency: string;
  to_currency?: string;
}

export interface TellerTransaction {
  id: string;
  environment: Environment;
  sessionId: string;
  officeId: string;
  tellerUserId: string;
  type: TellerTransactionType;
  accountId: string | null;
  currency: string;
  amount: string;
  toCurrency: string | null;
  toAmount: string | null;
  midRate: string | null;
  spread: string | null;
  appliedRate: string | null;
  rateAsOf: Date | null;
  entryId: string;
  createdAt: Date;
}

interface Row {
  id: string;
  environment: Environment;
  session_id: string;
  office_id: string;
  teller_user_id: string;
  type: TellerTransactionType;
  account_id: string | null;
  currency: string;
  amount: string;
  to_currency: string | null;
  to_amount: string | null;
  mid_rate: string | null;
  spread: string | null;
  applied_rate: string | null;
  rate_as_of: Date | null;
  entry_id: string;
  created_at: Date;
  precision: number;
  to_precision: number | null;
}

const SELECT = `SELECT t.id, t.environment, t.session_id, t.office_id, t.teller_user_id, t.type, t.account_id, t.currency, t.amount::text,
    t.to_currency, t.to_amount::text, t.mid_rate::text, t.spread::text, t.applied_rate::text, t.rate_as_of, t.entry_id, t.created_at,
    a.precision, b.precision AS to_precision
  FROM mf_teller_transactions t JOIN assets a ON a.code = t.currency LEFT JOIN assets b ON b.code = t.to_currency`;

const dec = (v: string | null) => (v === null ? null : new DecimalMoney(v).toFixed());

function toTransaction(r: Row): TellerTransaction {
  return {
    id: r.id,
    environment: r.environment,
    sessionId: r.session_id,
    officeId: r.office_id,
    tellerUserId: r.teller_user_id,
    type: r.type,
    accountId: r.account_id,
    currency: r.currency,
    amount: new DecimalMoney(r.amount).toFixed(r.precision),
    toCurrency: r.to_currency,
    toAmount: r.to_amount === null ? null : new DecimalMoney(r.to_amount).toFixed(r.to_precision ?? 0),
    midRate: dec(r.mid_rate),
    spread: dec(r.spread),
    appliedRate: dec(r.applied_rate),
    rateAsOf: r.rate_as_of,
    entryId: r.entry_id,
    createdAt: r.created_at,
  };
}

async function byKey(environment: Environment, key: string, client: Queryable): Promise<TellerTransaction | null> {
  const { rows } = await client.query<Row>(`${SELECT} WHERE t.environment = $1 AND t.idempotency_key = $2`, [environment, key]);
  return rows[0] ? toTransaction(rows[0]) : null;
}

async function knownAsset(code: string, pointer: string): Promise<Asset> {
  const asset = await getAsset(code);
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${code} is not supported`, pointer);
  return asset;
}

/** The customer's account in the session's environment; tenants' customers are served by their tenant (404 here). */
async function customerAccount(environment: Environment, accountId: string | undefined, client: Queryable) {
  if (accountId === undefined) throw new DomainError('VALIDATION_ERROR', 'account_id is required for a cash deposit or withdrawal', '/account_id');
  const account = await getAccount(null, environment, accountId, client);
  const tenant = account ? await client.query<{ tenant_id: string | null }>('SELECT tenant_id FROM accounts WHERE id = $1', [account.id]) : null;
  if (!account || tenant?.rows[0]?.tenant_id) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${accountId} not found`, '/account_id');
  if (account.status === 'closed') throw new DomainError('ACCOUNT_CLOSED', 'The account is closed', '/account_id');
  return account;
}

async function usdPrice(asset: string, pointer: string, client: Queryable) {
  const r = await latestRate(asset, client);
  if (!r || new DecimalMoney(r.rate).isZero()) throw new DomainError('RATE_UNAVAILABLE', `No exchange rate is known for ${asset}`, pointer);
  return r;
}

export async function createTellerTransaction(p: Principal, input: TellerTransactionInput, idempotencyKey?: string): Promise<TellerTransaction> {
  const asset = await knownAsset(input.currency, '/currency');
  const amount = parseRequestAmount(input.amount, asset);
  const toAsset = input.type === 'currency_exchange' ? await knownAsset(input.to_currency ?? '', '/to_currency') : null;
  if (input.type === 'currency_exchange' && toAsset?.code === asset.code) throw new DomainError('VALIDATION_ERROR', 'to_currency must differ from currency', '/to_currency');
  if (input.type !== 'currency_exchange' && input.to_currency !== undefined) throw new DomainError('VALIDATION_ERROR', 'to_currency is only for a currency exchange', '/to_currency');
  const key = idempotencyKey ? clientIdempotencyKey(p.userId, 'mf_teller_transaction', idempotencyKey) : `mf_teller_transaction:${newId('op')}`;
  return withTransaction(async (c) => {
    const known = await byKey(p.environment, key, c);
    if (known) return known;
    const s = await visibleSession(p, input.session_id, c, 'FOR SHARE');
    if (s.tellerUserId !== p.userId) throw new DomainError('TELLER_SESSION_NOT_FOUND', `Teller session ${input.session_id} not found`, '/session_id');
    if (s.status !== 'open') throw new DomainError('TELLER_SESSION_NOT_OPEN', `The session is ${s.status}`, '/session_id');
    if (!(await hasRole(s.officeId, p.userId, 'teller', c))) throw new DomainError('TELLER_NOT_IN_OFFICE', "The caller is no longer a teller of the session's office");
    const base = { environment: p.environment, idempotencyKey: key, userId: null, metadata: { office_id: s.officeId, session_id: s.id, teller_user_id: p.userId } };
    const till = await tillAccount(p.environment, s.id, asset.code, c);
    const tillShort = (account: string, cur: string) => ({ accountId: account, code: 'TILL_INSUFFICIENT_CASH', message: `The till does not hold enough ${cur}`, pointer: '/amount' });
    let accountId: string | null = null;
    let fx: { toAmount: string; midRate: string; appliedRate: string; spread: string; asOf: Date } | null = null;
    let entryId: string;
    if (input.type === 'currency_exchange') {
      if (input.account_id !== undefined) accountId = (await customerAccount(p.environment, input.account_id, c)).id;
      // One client: its queries in turn.
      const from = await usdPrice(asset.code, '/currency', c);
      const to = await usdPrice(toAsset!.code, '/to_currency', c);
      const office = await c.query<{ fx_spread: string }>('SELECT fx_spread::text FROM mf_offices WHERE id = $1', [s.officeId]);
      const spread = new DecimalMoney(office.rows[0].fx_spread).toFixed();
      const q = exchangeQuote({ amount, fromUsdPrice: from.rate, toUsdPrice: to.rate, spread, toPrecision: toAsset!.precision });
      if (new DecimalMoney(q.toAmount).isZero()) throw new DomainError('AMOUNT_TOO_SMALL', `${amount} ${asset.code} buys less than the smallest unit of ${toAsset!.code}`, '/amount');
      fx = { toAmount: q.toAmount, midRate: q.midRate, appliedRate: q.appliedRate, spread, asOf: from.asOf > to.asOf ? from.asOf : to.asOf };
      const toTill = await tillAccount(p.environment, s.id, toAsset!.code, c);
      const fxFrom = await fxPositionAccount(p.environment, asset.code, c);
      const fxTo = await fxPositionAccount(p.environment, toAsset!.code, c);
      const entry = await post(
        {
          ...base,
          type: 'mf_teller_exchange',
          description: `Exchange ${amount} ${asset.code} for ${q.toAmount} ${toAsset!.code} at ${q.appliedRate}`,
          lines: [dr(till, amount), cr(fxFrom, amount), dr(fxTo, q.toAmount), cr(toTill, q.toAmount)],
          metadata: { ...base.metadata, mid_rate: q.midRate, applied_rate: q.appliedRate, spread },
        },
        [tillShort(toTill, toAsset!.code)],
        c,
      );
      entryId = entry.id;
    } else {
      const account = await customerAccount(p.environment, input.account_id, c);
      accountId = account.id;
      const customer = await ensureCustomerLedgerAccount(account.id, asset.code, c);
      const deposit = input.type === 'cash_deposit';
      const entry = await post(
        {
          ...base,
          userId: account.userId,
          type: deposit ? 'mf_teller_deposit' : 'mf_teller_withdrawal',
          description: `Cash ${deposit ? 'deposit' : 'withdrawal'} at the counter (session ${s.id})`,
          lines: deposit
            ? [dr(till, amount), cr(customer, amount, { transactionType: 'deposit' })]
            : [dr(customer, amount, { transactionType: 'withdrawal' }), cr(till, amount)],
          metadata: { ...base.metadata, account_id: account.id },
        },
        [
          { accountId: customer, code: 'INSUFFICIENT_FUNDS', message: "The customer's available balance is too low", pointer: '/amount' },
          tillShort(till, asset.code),
        ],
        c,
      );
      entryId = entry.id;
    }
    const id = newId('ttxn');
    await c.query(
      `INSERT INTO mf_teller_transactions (id, environment, session_id, office_id, teller_user_id, type, account_id, currency, amount,
         to_currency, to_amount, mid_rate, spread, applied_rate, rate_as_of, entry_id, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
      [id, p.environment, s.id, s.officeId, p.userId, input.type, accountId, asset.code, amount, toAsset?.code ?? null, fx?.toAmount ?? null,
        fx?.midRate ?? null, fx?.spread ?? null, fx?.appliedRate ?? null, fx?.asOf ?? null, entryId, key],
    );
    return (await byKey(p.environment, key, c))!;
  });
}

/** A session's transactions, newest first, for its teller, a supervisor of its office or an operator. */
export async function listTellerTransactions(p: Principal, sessionId: string, page: { limit: number; offset: number }): Promise<{ items: TellerTransaction[]; total: number }> {
  await visibleSession(p, sessionId);
  const [items, total] = await Promise.all([
    getPool().query<Row>(`${SELECT} WHERE t.session_id = $1 ORDER BY t.created_at DESC, t.id LIMIT $2 OFFSET $3`, [sessionId, page.limit, page.offset]),
    getPool().query<{ n: string }>('SELECT count(*) AS n FROM mf_teller_transactions WHERE session_id = $1', [sessionId]),
  ]);
  return { items: items.rows.map(toTransaction), total: Number(total.rows[0].n) };
}
