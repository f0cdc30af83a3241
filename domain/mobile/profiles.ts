/**
 * How customers find each other in the mobile app: by email, phone (E.164, parsed with
 * libphonenumber) or @handle, and which account receives for them. A user's profile holds the
 * handle and phone they chose; email comes from their login.
 *
 * Finding someone reveals that they are a customer (as in every P2P wallet: the sender sees who they
 * are paying). Lookups are by exact identifier only, behind authentication and the rate limits; the
 * answer names the user, never their email or phone.
 */
import type { Principal } from '../auth/principal';
import { normalizeEmail } from '../auth/users';
import { getPool, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
// Phone parsing has one home, shared with SMS destinations.
import { toE164 } from '../sms/phone';

export interface MobileProfile {
  userId: string;
  name: string;
  handle: string | null;
  phone: string | null;
}

const HANDLE = /^[a-z0-9_]{3,30}$/;

export async function getProfile(userId: string, c: Queryable = getPool()): Promise<MobileProfile> {
  const { rows } = await c.query<{ id: string; name: string; handle: string | null; phone: string | null }>(
    'SELECT u.id, u.name, p.handle, p.phone FROM users u LEFT JOIN mobile_profiles p ON p.user_id = u.id WHERE u.id = $1',
    [userId],
  );
  return { userId, name: rows[0]?.name ?? '', handle: rows[0]?.handle ?? null, phone: rows[0]?.phone ?? null };
}

/** Sets the caller's handle and/or phone (null clears). A handle or phone someone else holds is 409-like 422 HANDLE_TAKEN / PHONE_TAKEN. */
export async function updateProfile(p: Principal, input: { handle?: string | null; phone?: string | null }): Promise<MobileProfile> {
  let handle: string | null | undefined;
  if (input.handle !== undefined) {
    handle = input.handle === null ? null : input.handle.trim().replace(/^@/, '').toLowerCase();
    if (handle !== null && !HANDLE.test(handle)) throw new DomainError('INVALID_HANDLE', 'A handle is 3 to 30 letters, digits or underscores', '/handle');
  }
  let phone: string | null | undefined;
  if (input.phone !== undefined) {
    phone = input.phone === null ? null : toE164(input.phone);
    if (input.phone !== null && !phone) throw new DomainError('INVALID_PHONE', 'phone must be a valid number in international form, e.g. +14155550123', '/phone');
  }
  try {
    await getPool().query(
      `INSERT INTO mobile_profiles (user_id, handle, phone) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE SET handle = CASE WHEN $4 THEN excluded.handle ELSE mobile_profiles.handle END,
         phone = CASE WHEN $5 THEN excluded.phone ELSE mobile_profiles.phone END, updated_at = now()`,
      [p.userId, handle ?? null, phone ?? null, handle !== undefined, phone !== undefined],
    );
  } catch (err) {
    const e = err as { code?: string; constraint?: string };
    if (e.code === '23505' && e.constraint === 'mobile_profiles_handle_key') throw new DomainError('HANDLE_TAKEN', 'That handle is taken', '/handle');
    if (e.code === '23505' && e.constraint === 'mobile_profiles_phone_key') throw new DomainError('PHONE_TAKEN', 'That phone number belongs to another customer', '/phone');
    throw err;
  }
  return getProfile(p.userId);
}

/**
 * The user an identifier names: an email (has @ after the first character), a phone (+ and digits)
 * or a handle (@name or name). Unknown: RECIPIENT_NOT_FOUND (404), the same for every kind.
 */
export async function resolveRecipient(identifier: string, pointer: string, tenantId: string | null = null, c: Queryable = getPool()): Promise<{ userId: string; name: string; via: 'email' | 'phone' | 'handle' }> {
  const raw = identifier.trim();
  let via: 'email' | 'phone' | 'handle';
  let sql: string;
  let value: string;
  if (/^[^@\s]+@[^@\s]+$/.test(raw)) {
    via = 'email';
    value = normalizeEmail(raw);
    sql = 'SELECT id, name FROM users u WHERE email = $1';
  } else if (/^\+[0-9 ()-]+$/.test(raw)) {
    via = 'phone';
    const e164 = toE164(raw);
    if (!e164) throw new DomainError('INVALID_RECIPIENT', 'The phone number is not valid', pointer);
    value = e164;
    sql = 'SELECT u.id, u.name FROM mobile_profiles p JOIN users u ON u.id = p.user_id WHERE p.phone = $1';
  } else {
    via = 'handle';
    value = raw.replace(/^@/, '').toLowerCase();
    if (!HANDLE.test(value)) throw new DomainError('INVALID_RECIPIENT', 'Send an email, a phone number (+…) or an @handle', pointer);
    sql = 'SELECT u.id, u.name FROM mobile_profiles p JOIN users u ON u.id = p.user_id WHERE p.handle = $1';
  }
  // Only customers of the caller's own space: a partner tenant's, or the platform's (no tenant).
  const { rows } = await c.query<{ id: string; name: string }>(`${sql} AND u.tenant_id IS NOT DISTINCT FROM $2`, [value, tenantId]);
  if (!rows[0]) throw new DomainError('RECIPIENT_NOT_FOUND', 'No customer with that email, phone or handle', pointer);
  return { userId: rows[0].id, name: rows[0].name, via };
}

/**
 * The account that receives for a user in an environment: their oldest active account (accounts
 * hold every asset; the asset's ledger account is opened on first receipt). None: 422
 * RECIPIENT_HAS_NO_ACCOUNT (the sender cannot pay someone who banks in the other environment).
 */
export async function receivingAccount(userId: string, environment: Environment, pointer: string, c: Queryable = getPool()): Promise<string> {
  const { rows } = await c.query<{ id: string }>(
    `SELECT id FROM accounts WHERE user_id = $1 AND environment = $2 AND status = 'active' ORDER BY created_at, id LIMIT 1`,
    [userId, environment],
  );
  if (!rows[0]) throw new DomainError('RECIPIENT_HAS_NO_ACCOUNT', 'The recipient has no active account to receive in', pointer);
  return rows[0].id;
}

/**
 * The account a payer pays from: the one named (theirs, active, else ACCOUNT_NOT_FOUND), or their
 * oldest active account holding the amount available in the asset, or their oldest active account
 * (the ledger then refuses with INSUFFICIENT_FUNDS).
 */
export async function payingAccount(userId: string, environment: Environment, assetCode: string, amount: string, accountId: string | undefined, pointer: string, c: Queryable = getPool()): Promise<string> {
  if (accountId) {
    const { rows } = await c.query<{ id: string }>(`SELECT id FROM accounts WHERE id = $1 AND user_id = $2 AND environment = $3`, [accountId, userId, environment]);
    if (!rows[0]) throw new DomainError('ACCOUNT_NOT_FOUND', `Account ${accountId.slice(0, 60)} not found`, pointer);
    return rows[0].id;
  }
  const { rows } = await c.query<{ id: string; funded: boolean }>(
    `SELECT a.id, COALESCE((ledger_balance_json(la)->>'available_balance')::numeric >= $4::numeric, false) AS funded
       FROM accounts a LEFT JOIN ledger_accounts la ON la.account_id = a.id AND la.asset_code = $3 AND la.chain = ''
      WHERE a.user_id = $1 AND a.environment = $2 AND a.status = 'active' ORDER BY a.created_at, a.id`,
    [userId, environment, assetCode, amount],
  );
  const pick = rows.find((r) => r.funded) ?? rows[0];
  if (!pick) throw new DomainError('ACCOUNT_NOT_FOUND', 'You have no active account to pay from', pointer);
  return pick.id;
}
