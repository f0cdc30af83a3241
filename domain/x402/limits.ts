/**
 * Spending limits on HTTP-native payments: per payer wallet and per agent (an API key tagged as an
 * agent), each a maximum per request and per UTC day, in USDC. An owner sets them for their own
 * wallets and agent keys; where none is set, the platform defaults apply (settings X402_PAYER_* and
 * X402_AGENT_*). They are enforced inside the settlement's transaction, before any money moves,
 * under a per-subject lock, so concurrent payments cannot together pass a daily budget.
 */
import Decimal from 'decimal.js';
import { getPool, type Queryable } from '../db/pool';
import { loadConfig } from '../platform/config';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { atomicToUsdc, usdcToAtomic } from './amounts';
import { assertNotAgent } from '../auth/agents';

/** The start of the current UTC day, in SQL: daily budgets reset at 00:00 UTC. */
const TODAY = `date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

export type LimitSubject = 'payer' | 'agent';

export interface Limit {
  perRequestMax: string;
  dailyMax: string;
  /** Whether the owner set it (false: the platform default). */
  custom: boolean;
}

export function defaultLimit(type: LimitSubject): Limit {
  const cfg = loadConfig();
  return type === 'payer'
    ? { perRequestMax: cfg.x402PayerPerRequestUsdc, dailyMax: cfg.x402PayerDailyUsdc, custom: false }
    : { perRequestMax: cfg.x402AgentPerRequestUsdc, dailyMax: cfg.x402AgentDailyUsdc, custom: false };
}

interface SubjectState {
  type: LimitSubject;
  subject: string;
  limit: Limit;
  /** USDC spent (settling or settled) since the start of the UTC day. */
  spent: string;
}

/**
 * Each subject's limit (the owner's, else the default) and today's spending, in one statement: the
 * one reading of budgets, for enforcement and for the views alike.
 */
async function readLimits(c: Queryable, environment: Environment, subjects: [LimitSubject, string][]): Promise<SubjectState[]> {
  if (subjects.length === 0) return [];
  const { rows } = await c.query<{ type: LimitSubject; subject: string; per: string | null; daily: string | null; spent: string }>(
    `SELECT s.type, s.subject, l.per_request_max::text AS per, l.daily_max::text AS daily,
            coalesce(CASE WHEN s.type = 'payer'
              THEN (SELECT sum(x.amount) FROM x402_payments x WHERE x.environment = $1 AND x.payer = s.subject AND x.status IN ('settling', 'settled') AND x.created_at >= ${TODAY})
              ELSE (SELECT sum(x.amount) FROM x402_payments x WHERE x.environment = $1 AND x.agent_key_id = s.subject AND x.status IN ('settling', 'settled') AND x.created_at >= ${TODAY})
            END, 0)::text AS spent
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS s(type, subject, i)
       LEFT JOIN x402_spending_limits l ON l.environment = $1 AND l.subject_type = s.type AND l.subject = s.subject
      ORDER BY s.i`,
    [environment, subjects.map(([t]) => t), subjects.map(([, x]) => x)],
  );
  return rows.map((r) => {
    const d = defaultLimit(r.type);
    return {
      type: r.type,
      subject: r.subject,
      limit: { perRequestMax: r.per ?? d.perRequestMax, dailyMax: r.daily ?? d.dailyMax, custom: r.per !== null || r.daily !== null },
      spent: atomicToUsdc(r.spent),
    };
  });
}

function refuseOver(type: LimitSubject, subject: string, amount: string, limit: Limit, spent: string): void {
  const who = type === 'payer' ? `wallet ${subject}` : `agent key ${subject}`;
  if (new Decimal(amount).gt(limit.perRequestMax)) {
    throw new DomainError('SPENDING_LIMIT_EXCEEDED', `${amount} USDC is over the per-request limit of ${limit.perRequestMax} USDC for ${who}`, undefined, {
      subject_type: type,
      limit: 'per_request',
      limit_usdc: limit.perRequestMax,
    });
  }
  if (new Decimal(spent).gt(limit.dailyMax)) {
    throw new DomainError('SPENDING_LIMIT_EXCEEDED', `${amount} USDC would bring ${who} to ${spent} USDC today, over its daily limit of ${limit.dailyMax} USDC`, undefined, {
      subject_type: type,
      limit: 'daily',
      limit_usdc: limit.dailyMax,
    });
  }
}

/**
 * The advisory-lock keys of a payment's subjects, payer first then agent (one order: no deadlock).
 * A caller may take them in an earlier statement of the transaction (holdToLimits with locked).
 */
export function limitLockKeys(p: { environment: Environment; payer: string; agentKeyId: string | null }): string[] {
  return [`x402-limit:${p.environment}:payer:${p.payer.toLowerCase()}`, ...(p.agentKeyId ? [`x402-limit:${p.environment}:agent:${p.agentKeyId}`] : [])];
}

/**
 * Refuses (SPENDING_LIMIT_EXCEEDED) a payment over the payer's or the agent's budget. Call inside the
 * settlement's transaction, after the payment is claimed (it counts in today's sum). Two statements:
 * the subjects' locks (payer, then agent: one order, so no deadlock), then limits and sums read
 * together after the locks are held, so they see every payment committed before.
 */
export async function holdToLimits(
  c: Queryable,
  p: { environment: Environment; payer: string; agentKeyId: string | null; amount: string; paymentId: string; locked?: boolean },
): Promise<void> {
  const subjects: [LimitSubject, string][] = [['payer', p.payer.toLowerCase()]];
  if (p.agentKeyId) subjects.push(['agent', p.agentKeyId]);
  if (!p.locked) await c.query('SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, i) ORDER BY i', [limitLockKeys(p)]);
  for (const st of await readLimits(c, p.environment, subjects)) refuseOver(st.type, st.subject, p.amount, st.limit, st.spent);
}

export interface LimitView {
  subjectType: LimitSubject;
  subject: string;
  label: string | null;
  limit: Limit;
  spentToday: string;
  remainingToday: string;
}

function view(st: SubjectState, label: string | null): LimitView {
  const remaining = Decimal.max(0, new Decimal(st.limit.dailyMax).minus(st.spent)).toFixed(6);
  return { subjectType: st.type, subject: st.subject, label, limit: st.limit, spentToday: st.spent, remainingToday: remaining };
}

/** The caller's wallets and agent keys in the environment, with their limits and today's spending. */
export async function listLimits(userId: string, environment: Environment, c: Queryable = getPool()): Promise<{ payers: LimitView[]; agents: LimitView[] }> {
  const wallets = await c.query<{ address: string; label: string | null }>(
    'SELECT address, label FROM x402_wallets WHERE user_id = $1 AND environment = $2 ORDER BY created_at, id',
    [userId, environment],
  );
  const keys = await c.query<{ id: string; name: string }>(
    'SELECT id, name FROM api_keys WHERE user_id = $1 AND environment = $2 AND agent AND revoked_at IS NULL ORDER BY created_at, id',
    [userId, environment],
  );
  const states = await readLimits(c, environment, [...wallets.rows.map((w) => ['payer', w.address] as [LimitSubject, string]), ...keys.rows.map((k) => ['agent', k.id] as [LimitSubject, string])]);
  return {
    payers: states.slice(0, wallets.rows.length).map((st, i) => view(st, wallets.rows[i].label)),
    agents: states.slice(wallets.rows.length).map((st, i) => view(st, keys.rows[i].name)),
  };
}

/** Whether the caller owns the subject (its wallet, or its agent key) in the environment. */
async function owns(c: Queryable, userId: string, environment: Environment, type: LimitSubject, subject: string): Promise<string | null> {
  const { rows } =
    type === 'payer'
      ? await c.query<{ label: string | null }>('SELECT label FROM x402_wallets WHERE user_id = $1 AND environment = $2 AND address = $3', [userId, environment, subject])
      : await c.query<{ label: string | null }>('SELECT name AS label FROM api_keys WHERE user_id = $1 AND environment = $2 AND id = $3 AND agent', [userId, environment, subject]);
  return rows[0] ? (rows[0].label ?? '') : null;
}

/**
 * Sets (or with both null, clears) the limit of a wallet or agent key the caller owns; another
 * user's subject is 404. A value is USDC with at most 6 decimals; per-request above daily is refused.
 */
export async function setLimit(
  by: { userId: string; environment: Environment; agent?: boolean },
  type: LimitSubject,
  rawSubject: string,
  values: { perRequestMax: string | null; dailyMax: string | null },
  c: Queryable = getPool(),
): Promise<LimitView> {
  const { userId, environment } = by;
  assertNotAgent(by, 'change spending limits');
  const subject = type === 'payer' ? rawSubject.toLowerCase() : rawSubject;
  const label = await owns(c, userId, environment, type, subject);
  if (label === null) throw new DomainError(type === 'payer' ? 'WALLET_NOT_FOUND' : 'API_KEY_NOT_FOUND', `No ${type === 'payer' ? 'wallet' : 'agent key'} ${rawSubject} of yours in ${environment}`);
  if (values.perRequestMax !== null) usdcToAtomic(values.perRequestMax, '/per_request_max');
  if (values.dailyMax !== null) usdcToAtomic(values.dailyMax, '/daily_max');
  // Both given: per request above the day's budget is a mistake (one given: the other default may be larger, the smaller binds).
  if (values.perRequestMax !== null && values.dailyMax !== null && new Decimal(values.perRequestMax).gt(values.dailyMax)) {
    throw new DomainError('VALIDATION_ERROR', 'per_request_max cannot be above daily_max', '/per_request_max');
  }
  if (values.perRequestMax === null && values.dailyMax === null) {
    await c.query('DELETE FROM x402_spending_limits WHERE environment = $1 AND subject_type = $2 AND subject = $3', [environment, type, subject]);
  } else {
    await c.query(
      `INSERT INTO x402_spending_limits (id, environment, user_id, subject_type, subject, per_request_max, daily_max)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (environment, subject_type, subject) DO UPDATE SET per_request_max = EXCLUDED.per_request_max, daily_max = EXCLUDED.daily_max, updated_at = now()`,
      [newId('x402lim'), environment, userId, type, subject, values.perRequestMax, values.dailyMax],
    );
  }
  return view((await readLimits(c, environment, [[type, subject]]))[0], label || null);
}
