/**
 * Cashier sessions (Fineract's cashier allocated to a teller for a period, with its cash
 * allocation and settlement). Opening moves the float from the office vault to the session's
 * tills (one balanced entry, Dr till / Cr vault per currency). Closing compares each till's
 * expected balance (the ledger's) with the count: what was counted, up to the expected amount,
 * goes back to the vault; a difference is recorded as a pending variance that a supervisor of the
 * office (never the teller) approves, which posts it (short: Dr cash variance / Cr till; over:
 * Dr vault / Cr cash variance, the surplus having gone into the vault with the count, so the till
 * never stands below zero). The session is closed only when
 * every till stands at zero; its till accounts are then closed in the ledger.
 */
import { getAsset } from '../../assets';
import type { Principal } from '../../auth/principal';
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { clientIdempotencyKey, getEntryByIdempotencyKey, setLedgerAccountStatus, type LineInput } from '../../ledger';
import { DecimalMoney, parseAmount, AmountError, parseRequestAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { hasRole, visibleOffice } from './offices';
import { cashVarianceAccount, cr, dr, post, tillAccount, vaultAccount } from './ledger';

export type SessionStatus = 'open' | 'variance_pending' | 'closed';

export interface Till {
  currency: string;
  ledgerAccountId: string;
  allocated: string;
  /** The till's ledger balance now. */
  balance: string;
  expected: string | null;
  counted: string | null;
  /** counted - expected: positive over, negative short. */
  variance: string | null;
}

export interface TellerSession {
  id: string;
  environment: Environment;
  officeId: string;
  tellerUserId: string;
  status: SessionStatus;
  openEntryId: string | null;
  closeEntryId: string | null;
  varianceEntryId: string | null;
  varianceApprovedBy: string | null;
  openedAt: Date;
  countedAt: Date | null;
  closedAt: Date | null;
  tills: Till[];
}

interface SessionRow {
  id: string;
  environment: Environment;
  office_id: string;
  teller_user_id: string;
  status: SessionStatus;
  open_entry_id: string | null;
  close_entry_id: string | null;
  variance_entry_id: string | null;
  variance_approved_by: string | null;
  opened_at: Date;
  counted_at: Date | null;
  closed_at: Date | null;
  tills: Array<{ currency: string; ledger_account_id: string; precision: number; allocated: string; balance: string; expected: string | null; counted: string | null; variance: string | null }> | null;
}

const fixed = (v: string | null, precision: number) => (v === null ? null : new DecimalMoney(v).toFixed(precision));

const SESSION_SELECT = `
  SELECT s.*,
    (SELECT json_agg(json_build_object('currency', t.currency, 'ledger_account_id', t.ledger_account_id, 'precision', a.precision,
        'allocated', t.allocated::text, 'balance', (la.debits_posted - la.credits_posted)::text,
        'expected', t.expected::text, 'counted', t.counted::text, 'variance', t.variance::text) ORDER BY t.currency)
     FROM mf_teller_session_tills t JOIN ledger_accounts la ON la.id = t.ledger_account_id JOIN assets a ON a.code = t.currency
     WHERE t.session_id = s.id) AS tills
  FROM mf_teller_sessions s`;

function toSession(r: SessionRow): TellerSession {
  return {
    id: r.id,
    environment: r.environment,
    officeId: r.office_id,
    tellerUserId: r.teller_user_id,
    status: r.status,
    openEntryId: r.open_entry_id,
    closeEntryId: r.close_entry_id,
    varianceEntryId: r.variance_entry_id,
    varianceApprovedBy: r.variance_approved_by,
    openedAt: r.opened_at,
    countedAt: r.counted_at,
    closedAt: r.closed_at,
    tills: (r.tills ?? []).map((t) => {
      const prec = t.precision;
      return {
        currency: t.currency,
        ledgerAccountId: t.ledger_account_id,
        allocated: fixed(t.allocated, prec)!,
        balance: fixed(t.balance, prec)!,
        expected: fixed(t.expected, prec),
        counted: fixed(t.counted, prec),
        variance: fixed(t.variance, prec),
      };
    }),
  };
}

async function loadSession(environment: Environment, id: string, client: Queryable, lock = ''): Promise<TellerSession | null> {
  if (lock) await client.query(`SELECT 1 FROM mf_teller_sessions WHERE id = $1 AND environment = $2 ${lock}`, [id, environment]);
  const { rows } = await client.query<SessionRow>(`${SESSION_SELECT} WHERE s.id = $1 AND s.environment = $2`, [id, environment]);
  return rows[0] ? toSession(rows[0]) : null;
}

/** Who may see a session: its teller, a supervisor of its office, an operator. */
async function canSee(p: Principal, s: TellerSession, client: Queryable): Promise<boolean> {
  return p.isAdmin || s.tellerUserId === p.userId || (await hasRole(s.officeId, p.userId, 'supervisor', client));
}

/** The session if the caller may see it (another office's or another teller's: 404). */
export async function visibleSession(p: Principal, id: string, client: Queryable = getPool(), lock = ''): Promise<TellerSession> {
  const s = await loadSession(p.environment, id, client, lock);
  if (!s || !(await canSee(p, s, client))) throw new DomainError('TELLER_SESSION_NOT_FOUND', `Teller session ${id} not found`);
  return s;
}

export const getSession = (p: Principal, id: string) => visibleSession(p, id);

export async function listSessions(
  p: Principal,
  q: { officeId?: string; status?: SessionStatus; limit: number; offset: number },
): Promise<{ items: TellerSession[]; total: number }> {
  const where = `WHERE s.environment = $1 AND ($2::text IS NULL OR s.office_id = $2) AND ($3::text IS NULL OR s.status = $3)
    AND ($4::boolean OR s.teller_user_id = $5
         OR EXISTS (SELECT 1 FROM mf_office_staff st WHERE st.office_id = s.office_id AND st.user_id = $5 AND st.role = 'supervisor'))`;
  const args = [p.environment, q.officeId ?? null, q.status ?? null, p.isAdmin, p.userId];
  const [items, total] = await Promise.all([
    getPool().query<SessionRow>(`${SESSION_SELECT} ${where} ORDER BY s.opened_at DESC, s.id LIMIT $6 OFFSET $7`, [...args, q.limit, q.offset]),
    getPool().query<{ n: string }>(`SELECT count(*) AS n FROM mf_teller_sessions s ${where}`, args),
  ]);
  return { items: items.rows.map(toSession), total: Number(total.rows[0].n) };
}

function distinctCurrencies(list: Array<{ currency: string }>, field: string): void {
  const seen = new Set<string>();
  list.forEach((x, i) => {
    const c = x.currency.toUpperCase();
    if (seen.has(c)) throw new DomainError('VALIDATION_ERROR', `currency ${c} is listed twice`, `/${field}/${i}/currency`);
    seen.add(c);
  });
}

/**
 * Opens a cashier session for the calling teller at their office, with a float per currency from
 * the office vault. An office the caller is not staff of is 404 OFFICE_NOT_FOUND; staff who are no
 * teller there 403 TELLER_NOT_IN_OFFICE. One unsettled session per teller (409 TELLER_SESSION_ALREADY_OPEN).
 */
export async function openSession(
  p: Principal,
  input: { office_id: string; allocations: Array<{ currency: string; amount: string }> },
  idempotencyKey?: string,
): Promise<TellerSession> {
  const office = await visibleOffice(p, input.office_id);
  if (!(await hasRole(office.id, p.userId, 'teller'))) {
    throw new DomainError('TELLER_NOT_IN_OFFICE', 'The caller is not a teller of this office', '/office_id');
  }
  distinctCurrencies(input.allocations, 'allocations');
  const allocations: Array<{ currency: string; amount: string; pointer: string }> = [];
  for (const [i, a] of input.allocations.entries()) {
    const asset = await getAsset(a.currency);
    if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${a.currency} is not supported`, `/allocations/${i}/currency`);
    allocations.push({ currency: asset.code, amount: parseRequestAmount(a.amount, asset, `/allocations/${i}/amount`), pointer: `/allocations/${i}/amount` });
  }
  const key = idempotencyKey ? clientIdempotencyKey(p.userId, 'mf_teller_session_open', idempotencyKey) : `mf_teller_session_open:${newId('op')}`;
  const sessionId = await withTransaction(async (c) => {
    const known = await getEntryByIdempotencyKey(p.environment, key, c);
    if (known) {
      const { rows } = await c.query<{ id: string }>('SELECT id FROM mf_teller_sessions WHERE open_entry_id = $1', [known.id]);
      if (rows[0]) return rows[0].id;
    }
    const id = newId('tses');
    try {
      await c.query(`INSERT INTO mf_teller_sessions (id, environment, office_id, teller_user_id) VALUES ($1, $2, $3, $4)`, [id, p.environment, office.id, p.userId]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new DomainError('TELLER_SESSION_ALREADY_OPEN', 'The teller already has a session that is not closed');
      throw err;
    }
    const lines: LineInput[] = [];
    const named: Parameters<typeof post>[1] = [];
    for (const a of allocations) {
      const till = await tillAccount(p.environment, id, a.currency, c);
      const vault = await vaultAccount(p.environment, office.id, a.currency, c);
      await c.query('UPDATE mf_teller_session_tills SET allocated = $3 WHERE session_id = $1 AND currency = $2', [id, a.currency, a.amount]);
      lines.push(dr(till, a.amount), cr(vault, a.amount));
      named.push({ accountId: vault, code: 'VAULT_INSUFFICIENT_CASH', message: `The office vault does not hold ${a.amount} ${a.currency}`, pointer: a.pointer });
    }
    const entry = await post(
      { environment: p.environment, idempotencyKey: key, type: 'mf_teller_session_open', description: `Float for teller session ${id}`, lines, metadata: { office_id: office.id, session_id: id } },
      named,
      c,
    );
    await c.query('UPDATE mf_teller_sessions SET open_entry_id = $2 WHERE id = $1', [id, entry.id]);
    return id;
  });
  return visibleSession(p, sessionId);
}

/** A count: zero is a valid count (nothing in the drawer), unlike an amount to move. */
function parseCount(value: unknown, precision: number, pointer: string): string {
  if (value === '0' || (typeof value === 'string' && /^0+(\.0+)?$/.test(value))) return new DecimalMoney(0).toFixed(precision);
  try {
    return parseAmount(value, precision);
  } catch (err) {
    if (err instanceof AmountError) throw new DomainError(err.code, err.message, pointer);
    throw err;
  }
}

/**
 * The teller closes their session with the cash counted per currency. Every till currency with
 * cash expected must be counted (422 COUNT_MISSING); a currency without a till is refused.
 */
export async function closeSession(p: Principal, id: string, input: { counted: Array<{ currency: string; amount: string }> }, idempotencyKey?: string): Promise<TellerSession> {
  distinctCurrencies(input.counted, 'counted');
  await withTransaction(async (c) => {
    // FOR UPDATE waits for the session's transactions in flight (they hold FOR SHARE): the tills are final.
    const s = await visibleSession(p, id, c, 'FOR UPDATE');
    if (s.tellerUserId !== p.userId) throw new DomainError('TELLER_REQUIRED', "Only the session's teller closes it");
    if (s.status !== 'open') throw new DomainError('TELLER_SESSION_NOT_OPEN', `The session is ${s.status}`);
    const counted = new Map<string, string>();
    for (const [i, x] of input.counted.entries()) {
      const till = s.tills.find((t) => t.currency === x.currency.toUpperCase());
      if (!till) throw new DomainError('COUNT_UNKNOWN_CURRENCY', `The session has no till in ${x.currency}`, `/counted/${i}/currency`);
      const asset = (await getAsset(till.currency, c))!;
      counted.set(till.currency, parseCount(x.amount, asset.precision, `/counted/${i}/amount`));
    }
    const lines: LineInput[] = [];
    let balanced = true;
    for (const t of s.tills) {
      const expected = new DecimalMoney(t.balance);
      const count = counted.get(t.currency);
      if (count === undefined && !expected.isZero()) throw new DomainError('COUNT_MISSING', `Count the ${t.currency} till (expected ${t.balance})`, '/counted');
      const got = new DecimalMoney(count ?? '0');
      const variance = got.minus(expected);
      if (!variance.isZero()) balanced = false;
      const back = DecimalMoney.min(got, expected);
      if (back.greaterThan(0)) {
        const vault = await vaultAccount(p.environment, s.officeId, t.currency, c);
        lines.push(dr(vault, back.toFixed()), cr(t.ledgerAccountId, back.toFixed()));
      }
      await c.query('UPDATE mf_teller_session_tills SET expected = $3, counted = $4, variance = $5 WHERE session_id = $1 AND currency = $2', [
        id,
        t.currency,
        expected.toFixed(),
        got.toFixed(),
        variance.toFixed(),
      ]);
    }
    let entryId: string | null = null;
    if (lines.length > 0) {
      const key = idempotencyKey ? clientIdempotencyKey(p.userId, `mf_teller_session_close:${id}`, idempotencyKey) : `mf_teller_session_close:${id}`;
      const entry = await post(
        { environment: p.environment, idempotencyKey: key, type: 'mf_teller_session_close', description: `Cash of teller session ${id} back to the vault`, lines, metadata: { office_id: s.officeId, session_id: id } },
        [],
        c,
      );
      entryId = entry.id;
    }
    await c.query(
      `UPDATE mf_teller_sessions SET close_entry_id = $2, counted_at = now(), status = $3, closed_at = CASE WHEN $3 = 'closed' THEN now() END WHERE id = $1`,
      [id, entryId, balanced ? 'closed' : 'variance_pending'],
    );
    if (balanced) for (const t of s.tills) await setLedgerAccountStatus(t.ledgerAccountId, 'closed', c);
  });
  return visibleSession(p, id);
}

/**
 * A supervisor of the session's office approves its pending variance, which posts it and closes
 * the session. The session's own teller may not (403 VARIANCE_SELF_APPROVAL), nor anyone who is
 * not a supervisor of that office (403 SUPERVISOR_REQUIRED).
 */
export async function approveVariance(p: Principal, id: string, idempotencyKey?: string): Promise<TellerSession> {
  await withTransaction(async (c) => {
    const s = await visibleSession(p, id, c, 'FOR UPDATE');
    if (s.tellerUserId === p.userId) throw new DomainError('VARIANCE_SELF_APPROVAL', 'A teller cannot approve the variance of their own session');
    if (!(await hasRole(s.officeId, p.userId, 'supervisor', c))) throw new DomainError('SUPERVISOR_REQUIRED', "Only a supervisor of the session's office approves a variance");
    if (s.status !== 'variance_pending') throw new DomainError('VARIANCE_NOT_PENDING', `The session is ${s.status}: no variance is pending`);
    const lines: LineInput[] = [];
    for (const t of s.tills) {
      const v = new DecimalMoney(t.variance ?? '0');
      if (v.isZero()) continue;
      const variance = await cashVarianceAccount(p.environment, t.currency, c);
      const amount = v.abs().toFixed();
      if (v.isNegative()) {
        lines.push(dr(variance, amount), cr(t.ledgerAccountId, amount));
      } else {
        const vault = await vaultAccount(p.environment, s.officeId, t.currency, c);
        // The surplus was handed into the vault with the count; the till never held it.
        lines.push(dr(vault, amount), cr(variance, amount));
      }
    }
    const key = idempotencyKey ? clientIdempotencyKey(p.userId, `mf_teller_variance:${id}`, idempotencyKey) : `mf_teller_variance:${id}`;
    const entry = await post(
      { environment: p.environment, idempotencyKey: key, type: 'mf_teller_variance', description: `Cash variance of teller session ${id}`, lines, metadata: { office_id: s.officeId, session_id: id, approved_by: p.userId } },
      [],
      c,
    );
    await c.query(`UPDATE mf_teller_sessions SET variance_entry_id = $2, variance_approved_by = $3, status = 'closed', closed_at = now() WHERE id = $1`, [id, entry.id, p.userId]);
    for (const t of s.tills) await setLedgerAccountStatus(t.ledgerAccountId, 'closed', c);
  });
  return visibleSession(p, id);
}
