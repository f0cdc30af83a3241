/**
 * Tenants: a partner's isolated customer spaces. A tenant's customers (users created by the
 * partner under it) and their accounts carry the tenant id, and the domain keeps money inside it:
 * a transfer's destination must be an account of the same tenant (domain/transfers/checks.ts; any
 * other is DESTINATION_NOT_FOUND, as if it did not exist), P2P and payment-intent recipients are
 * found within the tenant only (domain/mobile/profiles.ts), and reading another customer's account
 * is a 404 as everywhere. Plans bound a tenant's size: its customers and accounts.
 */
import { randomBytes } from 'node:crypto';
import { createApiKey } from '../auth/api-keys';
import { hashPassword } from '../auth/passwords';
import { normalizeEmail } from '../auth/users';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import type { Partner } from './partners';

export const PLANS = { basic: { maxUsers: 100, maxAccounts: 200 }, standard: { maxUsers: 10_000, maxAccounts: 20_000 }, premium: { maxUsers: 1_000_000, maxAccounts: 2_000_000 } } as const;
export type Plan = keyof typeof PLANS;

export interface Tenant {
  id: string;
  partnerId: string;
  name: string;
  plan: Plan;
  domain: string;
  status: string;
  createdAt: Date;
}

const toTenant = (r: Record<string, any>): Tenant => ({ id: r.id, partnerId: r.partner_id, name: r.name, plan: r.plan, domain: r.domain, status: r.status, createdAt: r.created_at });

/** A DNS host name (RFC 1123 labels, at least two, a letter TLD), lower-cased. */
function normalizeDomain(raw: string): string {
  const d = raw.trim().toLowerCase().replace(/\.$/, '');
  const labels = d.split('.');
  const ok = d.length <= 253 && labels.length >= 2 && labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l)) && /^[a-z]{2,63}$/.test(labels[labels.length - 1]);
  if (!ok) throw new DomainError('INVALID_DOMAIN', 'domain must be a host name such as bank.example.com', '/domain');
  return d;
}

export async function createTenant(partner: Partner, b: { name: string; plan: string; domain: string }): Promise<Tenant> {
  if (!(b.plan in PLANS)) throw new DomainError('UNKNOWN_PLAN', `plan must be one of ${Object.keys(PLANS).join(', ')}`, '/plan');
  const domain = normalizeDomain(b.domain);
  try {
    const { rows } = await getPool().query(
      `INSERT INTO partner_tenants (id, partner_id, name, plan, domain, status) VALUES ($1, $2, $3, $4, $5, 'active') RETURNING *`,
      [newId('ten'), partner.id, b.name.trim(), b.plan, domain],
    );
    return toTenant(rows[0]);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new DomainError('DOMAIN_TAKEN', `${domain} is already a tenant's domain`, '/domain');
    throw err;
  }
}

export async function listTenants(partner: Partner, q: { limit: number; offset: number }): Promise<{ items: Tenant[]; total: number }> {
  const { rows } = await getPool().query(
    `SELECT *, count(*) OVER () AS total FROM partner_tenants WHERE partner_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [partner.id, q.limit, q.offset],
  );
  return { items: rows.map(toTenant), total: rows[0] ? Number(rows[0].total) : 0 };
}

/** The partner's own tenant, locked; another partner's is 404. */
async function lockOwnTenant(c: Queryable, partner: Partner, id: string): Promise<Tenant> {
  const { rows } = await c.query(`SELECT * FROM partner_tenants WHERE id = $1 AND partner_id = $2 FOR UPDATE`, [id, partner.id]);
  if (!rows[0]) throw new DomainError('TENANT_NOT_FOUND', 'Tenant not found');
  return toTenant(rows[0]);
}

/**
 * The partner creates a customer in one of its tenants, with an API key of the partner's key's
 * environment (shown once). Within the plan's customer limit.
 */
export async function createTenantUser(partner: Partner, tenantId: string, environment: Environment, b: { name: string; email: string }): Promise<{ userId: string; tenantId: string; email: string; apiKey: string }> {
  const email = normalizeEmail(b.email);
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new DomainError('INVALID_EMAIL', 'email is not an address', '/email');
  return withTransaction(async (c) => {
    const tenant = await lockOwnTenant(c, partner, tenantId);
    const { rows: n } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE tenant_id = $1', [tenant.id]);
    if (n[0].n >= PLANS[tenant.plan].maxUsers) throw new DomainError('PLAN_LIMIT_REACHED', `The ${tenant.plan} plan allows ${PLANS[tenant.plan].maxUsers} customers`);
    const userId = newId('usr');
    try {
      await c.query(`INSERT INTO users (id, name, email, password_hash, tenant_id) VALUES ($1, $2, $3, $4, $5)`, [userId, b.name.trim(), email, await hashPassword(randomBytes(32).toString('base64url')), tenant.id]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new DomainError('EMAIL_TAKEN', 'A customer with that email exists', '/email');
      throw err;
    }
    const key = await createApiKey({ userId, name: `${tenant.name} customer key`, environment, permissions: ['read', 'write', 'delete'] }, c);
    return { userId, tenantId: tenant.id, email, apiKey: key.value };
  });
}

export interface TenantCustomer {
  userId: string;
  name: string;
  email: string;
  accounts: number;
  createdAt: Date;
}

/** The customers of one of the partner's tenants (another partner's tenant: 404), newest first. */
export async function listTenantUsers(partner: Partner, tenantId: string, q: { limit: number; offset: number }): Promise<{ items: TenantCustomer[]; total: number }> {
  const { rows: t } = await getPool().query('SELECT 1 FROM partner_tenants WHERE id = $1 AND partner_id = $2', [tenantId, partner.id]);
  if (!t[0]) throw new DomainError('TENANT_NOT_FOUND', 'Tenant not found');
  const { rows } = await getPool().query<{ id: string; name: string; email: string; accounts: number; created_at: Date; total: string }>(
    `SELECT u.id, u.name, u.email, u.created_at, (SELECT count(*)::int FROM accounts a WHERE a.user_id = u.id) AS accounts, count(*) OVER () AS total
       FROM users u WHERE u.tenant_id = $1 ORDER BY u.created_at DESC, u.id DESC LIMIT $2 OFFSET $3`,
    [tenantId, q.limit, q.offset],
  );
  return { items: rows.map((r) => ({ userId: r.id, name: r.name, email: r.email, accounts: r.accounts, createdAt: r.created_at })), total: rows[0] ? Number(rows[0].total) : 0 };
}

/** Called where an account is opened: a tenant customer's account carries the tenant, within its plan. */
export async function tenantForNewAccount(c: Queryable, userId: string): Promise<string | null> {
  const { rows } = await c.query<{ tenant_id: string | null }>('SELECT tenant_id FROM users WHERE id = $1', [userId]);
  const tenantId = rows[0]?.tenant_id ?? null;
  if (!tenantId) return null;
  const { rows: t } = await c.query<{ plan: Plan }>('SELECT plan FROM partner_tenants WHERE id = $1 FOR UPDATE', [tenantId]);
  const { rows: n } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts WHERE tenant_id = $1', [tenantId]);
  const max = PLANS[t[0].plan].maxAccounts;
  if (n[0].n >= max) throw new DomainError('PLAN_LIMIT_REACHED', `The tenant's ${t[0].plan} plan allows ${max} accounts`);
  return tenantId;
}
