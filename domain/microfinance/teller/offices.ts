/**
 * Offices (branches, Fineract's offices) with their vaults, and their staff: tellers (a teller
 * serves one office) and supervisors (who approve cash variances). Operators create offices,
 * assign staff and fund vaults; staff see the offices they belong to.
 */
import { getAsset } from '../../assets';
import type { Principal } from '../../auth/principal';
import { getPool, withTransaction, type Queryable } from '../../db/pool';
import { clientIdempotencyKey, getEntryByIdempotencyKey, systemAccount, type Entry } from '../../ledger';
import { DecimalMoney, parseRequestAmount } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { cr, dr, post, vaultAccount } from './ledger';

export type StaffRole = 'teller' | 'supervisor';

export interface Vault {
  currency: string;
  ledgerAccountId: string;
  balance: string;
}

export interface Office {
  id: string;
  environment: Environment;
  name: string;
  externalId: string | null;
  parentId: string | null;
  fxSpread: string;
  createdAt: Date;
  vaults: Vault[];
}

export interface StaffMember {
  id: string;
  officeId: string;
  userId: string;
  role: StaffRole;
  createdAt: Date;
}

interface OfficeRow {
  id: string;
  environment: Environment;
  name: string;
  external_id: string | null;
  parent_id: string | null;
  fx_spread: string;
  created_at: Date;
  vaults: Array<{ currency: string; ledger_account_id: string; balance: string }> | null;
}

const OFFICE_SELECT = `
  SELECT o.id, o.environment, o.name, o.external_id, o.parent_id, o.fx_spread::text, o.created_at,
    (SELECT json_agg(json_build_object('currency', v.currency, 'ledger_account_id', v.ledger_account_id,
        'balance', round(la.debits_posted - la.credits_posted, a.precision)::text) ORDER BY v.currency)
     FROM mf_office_vaults v JOIN ledger_accounts la ON la.id = v.ledger_account_id JOIN assets a ON a.code = v.currency
     WHERE v.office_id = o.id) AS vaults
  FROM mf_offices o`;

function toOffice(r: OfficeRow): Office {
  return {
    id: r.id,
    environment: r.environment,
    name: r.name,
    externalId: r.external_id,
    parentId: r.parent_id,
    fxSpread: new DecimalMoney(r.fx_spread).toFixed(),
    createdAt: r.created_at,
    vaults: (r.vaults ?? []).map((v) => ({ currency: v.currency, ledgerAccountId: v.ledger_account_id, balance: v.balance })),
  };
}

/** The office in the caller's environment, or OFFICE_NOT_FOUND. */
export async function officeById(environment: Environment, id: string, client: Queryable = getPool()): Promise<Office> {
  const { rows } = await client.query<OfficeRow>(`${OFFICE_SELECT} WHERE o.id = $1 AND o.environment = $2`, [id, environment]);
  if (!rows[0]) throw new DomainError('OFFICE_NOT_FOUND', `Office ${id} not found`);
  return toOffice(rows[0]);
}

/**
 * The office if the caller may see it: operators any of the environment, staff their offices.
 * Anyone else gets OFFICE_NOT_FOUND, as for an office that does not exist (GET /offices lists none).
 */
export async function visibleOffice(p: Principal, id: string, client: Queryable = getPool()): Promise<Office> {
  const office = await officeById(p.environment, id, client);
  if (p.isAdmin) return office;
  const staff = await client.query('SELECT 1 FROM mf_office_staff WHERE office_id = $1 AND user_id = $2', [office.id, p.userId]);
  if (staff.rowCount === 0) throw new DomainError('OFFICE_NOT_FOUND', `Office ${id} not found`);
  return office;
}

export async function createOffice(p: Principal, input: { name: string; external_id?: string; parent_id?: string; fx_spread?: string }): Promise<Office> {
  if (input.parent_id !== undefined) {
    const parent = await getPool().query('SELECT 1 FROM mf_offices WHERE id = $1 AND environment = $2', [input.parent_id, p.environment]);
    if (parent.rowCount === 0) throw new DomainError('OFFICE_NOT_FOUND', `Parent office ${input.parent_id} not found`, '/parent_id');
  }
  const spread = input.fx_spread ?? '0.01';
  if (!/^0(\.\d{1,6})?$/.test(spread) || new DecimalMoney(spread).greaterThanOrEqualTo('0.5')) {
    throw new DomainError('VALIDATION_ERROR', 'fx_spread must be a decimal string from 0 to below 0.5 with at most 6 decimals', '/fx_spread');
  }
  const id = newId('office');
  await getPool().query(
    `INSERT INTO mf_offices (id, environment, name, external_id, parent_id, fx_spread, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [id, p.environment, input.name, input.external_id ?? null, input.parent_id ?? null, spread, p.userId],
  );
  return officeById(p.environment, id);
}

/** Operators see every office of the environment; staff the offices they belong to. */
export async function listOffices(p: Principal, page: { limit: number; offset: number }): Promise<{ items: Office[]; total: number }> {
  const where = `WHERE o.environment = $1 AND ($2::boolean OR EXISTS (SELECT 1 FROM mf_office_staff s WHERE s.office_id = o.id AND s.user_id = $3))`;
  const args = [p.environment, p.isAdmin, p.userId];
  const [items, total] = await Promise.all([
    getPool().query<OfficeRow>(`${OFFICE_SELECT} ${where} ORDER BY o.created_at, o.id LIMIT $4 OFFSET $5`, [...args, page.limit, page.offset]),
    getPool().query<{ n: string }>(`SELECT count(*) AS n FROM mf_offices o ${where}`, args),
  ]);
  return { items: items.rows.map(toOffice), total: Number(total.rows[0].n) };
}

/**
 * Assigns a user to an office as teller or supervisor (idempotent). A teller serves one office:
 * a teller of another office is 409 TELLER_ALREADY_ASSIGNED.
 */
export async function assignStaff(p: Principal, officeId: string, input: { user_id: string; role?: StaffRole }): Promise<StaffMember> {
  const role = input.role ?? 'teller';
  await officeById(p.environment, officeId);
  const user = await getPool().query('SELECT 1 FROM users WHERE id = $1', [input.user_id]);
  if (user.rowCount === 0) throw new DomainError('USER_NOT_FOUND', `User ${input.user_id} not found`, '/user_id');
  try {
    await getPool().query(
      `INSERT INTO mf_office_staff (id, environment, office_id, user_id, role, created_by) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (office_id, user_id, role) DO NOTHING`,
      [newId('staff'), p.environment, officeId, input.user_id, role, p.userId],
    );
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new DomainError('TELLER_ALREADY_ASSIGNED', 'The user is already a teller of another office', '/user_id');
    throw err;
  }
  const { rows } = await getPool().query<{ id: string; office_id: string; user_id: string; role: StaffRole; created_at: Date }>(
    'SELECT id, office_id, user_id, role, created_at FROM mf_office_staff WHERE office_id = $1 AND user_id = $2 AND role = $3',
    [officeId, input.user_id, role],
  );
  const r = rows[0];
  return { id: r.id, officeId: r.office_id, userId: r.user_id, role: r.role, createdAt: r.created_at };
}

/** True when the user holds that role at the office. */
export async function hasRole(officeId: string, userId: string, role: StaffRole, client: Queryable = getPool()): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM mf_office_staff WHERE office_id = $1 AND user_id = $2 AND role = $3', [officeId, userId, role]);
  return (rowCount ?? 0) > 0;
}

/**
 * Physical cash arriving at a branch: Dr vault / Cr the funding system account (sharded by the
 * idempotency key). Keyed by the client's Idempotency-Key, so a retry never funds twice.
 */
export async function fundVault(p: Principal, officeId: string, input: { currency: string; amount: string }, idempotencyKey?: string): Promise<{ office: Office; entry: Entry }> {
  const asset = await getAsset(input.currency);
  if (!asset) throw new DomainError('UNKNOWN_ASSET', `Asset ${input.currency} is not supported`, '/currency');
  const amount = parseRequestAmount(input.amount, asset);
  const entry = await withTransaction(async (c) => {
    await officeById(p.environment, officeId, c);
    const key = idempotencyKey ? clientIdempotencyKey(p.userId, `mf_vault_funding:${officeId}`, idempotencyKey) : `mf_vault_funding:${newId('op')}`;
    const known = await getEntryByIdempotencyKey(p.environment, key, c);
    if (known) return known;
    const vault = await vaultAccount(p.environment, officeId, asset.code, c);
    const funding = await systemAccount(p.environment, asset.code, 'funding', key, c);
    return post(
      {
        environment: p.environment,
        idempotencyKey: key,
        type: 'mf_vault_funding',
        description: `Cash delivered to office ${officeId}`,
        lines: [dr(vault, amount), cr(funding, amount)],
        metadata: { office_id: officeId, funded_by: p.userId },
      },
      [],
      c,
    );
  });
  return { office: await officeById(p.environment, officeId), entry };
}
