/**
 * Joint-liability groups (Fineract "groups"): a leader and members of one tenant and environment,
 * each with the account their loans are paid into and repaid from.
 *
 * Consent: nobody becomes liable for others' loans without saying so. The creator (the leader) joins
 * at creation with an account of their own; everyone else is invited and joins by accepting, when
 * they choose their account (acceptInvitation), or declines. Only accepted members are drawn on for
 * arrears; a group is activated only once no invitation is open and enough members accepted. A
 * member sees the members' roles and statuses, and only their own account; operators see all.
 *
 * Guarantee fund: a customer account (accounts row, type savings) opened for the group at creation,
 * owned by the leader as custodian, named "<group> guarantee fund" and tagged in its metadata
 * ({ mf_group_id, purpose: 'mf_guarantee_fund' }). Members fund it with ordinary transfers, so its
 * money is ledger money like any other. It is opened frozen and stays so: it moves only by the
 * group's rules (fund.ts): joint liability draws on it first (liability.ts), and closing the group
 * returns it to the members and closes it. Lifecycle: pending → active (operator) → closed (no open loan).
 */
import type pg from 'pg';
import { createAccount, freezeAccount } from '../accounts';
import type { Principal } from '../auth/principal';
import { getPool, withTransaction, type Queryable } from '../db/pool';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import { returnFund } from './fund';

export type GroupStatus = 'pending' | 'active' | 'closed';
export type MemberRole = 'leader' | 'member';
export type MemberStatus = 'invited' | 'accepted' | 'declined';

export interface GroupMember {
  userId: string;
  /** The member's account: null while invited, and hidden (null) from other customers. */
  accountId: string | null;
  role: MemberRole;
  status: MemberStatus;
  joinedAt: Date;
  respondedAt: Date | null;
}

export interface Group {
  id: string;
  environment: Environment;
  tenantId: string | null;
  name: string;
  liabilityType: 'joint';
  status: GroupStatus;
  guaranteeAccountId: string | null;
  createdBy: string;
  createdAt: Date;
  activatedAt: Date | null;
  closedAt: Date | null;
  members: GroupMember[];
}

export interface MemberInput {
  userId: string;
  accountId?: string;
  role?: MemberRole;
}

export function groupSizeLimits(): { min: number; max: number } {
  const int = (name: string, d: number) => {
    const v = Number(process.env[name] ?? d);
    return Number.isInteger(v) && v > 0 ? v : d;
  };
  return { min: int('MICROFINANCE_GROUP_MIN_MEMBERS', 3), max: int('MICROFINANCE_GROUP_MAX_MEMBERS', 30) };
}

type GroupRow = {
  id: string; environment: Environment; tenant_id: string | null; name: string; liability_type: 'joint'; status: GroupStatus;
  guarantee_account_id: string | null; created_by: string; created_at: Date; activated_at: Date | null; closed_at: Date | null;
};
type MemberRow = { group_id: string; user_id: string; account_id: string | null; role: MemberRole; status: MemberStatus; joined_at: Date; responded_at: Date | null };

/** `viewer`: the customer reading (others' accounts hidden); omitted for operators and internal reads. */
async function withMembers(rows: GroupRow[], client: Queryable, viewer?: string): Promise<Group[]> {
  if (rows.length === 0) return [];
  const m = await client.query<MemberRow>(
    `SELECT * FROM mf_group_members WHERE group_id = ANY($1::text[]) ORDER BY (role = 'leader') DESC, joined_at, user_id`,
    [rows.map((r) => r.id)],
  );
  return rows.map((r) => ({
    id: r.id, environment: r.environment, tenantId: r.tenant_id, name: r.name, liabilityType: r.liability_type, status: r.status,
    guaranteeAccountId: r.guarantee_account_id, createdBy: r.created_by, createdAt: r.created_at, activatedAt: r.activated_at, closedAt: r.closed_at,
    members: m.rows
      .filter((x) => x.group_id === r.id)
      .map((x) => ({
        userId: x.user_id,
        accountId: viewer === undefined || viewer === x.user_id ? x.account_id : null,
        role: x.role,
        status: x.status,
        joinedAt: x.joined_at,
        respondedAt: x.responded_at,
      })),
  }));
}

const notFound = (id: string) => new DomainError('MF_GROUP_NOT_FOUND', `Group ${id} not found`);

/** The group as the caller may see it: operators see every group of the environment, customers their own. */
export async function getGroup(p: Principal, id: string, client: Queryable = getPool(), lock = false): Promise<Group> {
  const { rows } = await client.query<GroupRow>(
    `SELECT g.* FROM mf_groups g WHERE g.id = $1 AND g.environment = $2
       AND ($3 OR EXISTS (SELECT 1 FROM mf_group_members m WHERE m.group_id = g.id AND m.user_id = $4))${lock ? ' FOR UPDATE' : ''}`,
    [id, p.environment, p.isAdmin, p.userId],
  );
  if (!rows[0]) throw notFound(id);
  return (await withMembers(rows, client, p.isAdmin ? undefined : p.userId))[0];
}

export async function listGroups(p: Principal, page: { limit: number; offset: number }): Promise<{ items: Group[]; total: number }> {
  const where = `g.environment = $1 AND ($2 OR EXISTS (SELECT 1 FROM mf_group_members m WHERE m.group_id = g.id AND m.user_id = $3))`;
  const pool = getPool();
  const { rows } = await pool.query<GroupRow & { total: string }>(
    `SELECT g.*, count(*) OVER () AS total FROM mf_groups g WHERE ${where} ORDER BY g.created_at DESC, g.id DESC LIMIT $4 OFFSET $5`,
    [p.environment, p.isAdmin, p.userId, page.limit, page.offset],
  );
  const total = rows[0] ? Number(rows[0].total) : (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM mf_groups g WHERE ${where}`, [p.environment, p.isAdmin, p.userId])).rows[0].n;
  return { items: await withMembers(rows, pool, p.isAdmin ? undefined : p.userId), total };
}

/**
 * Creates a pending group. The creator is its leader (added when not listed; an operator may
 * instead name a leader among the members) and joins with an active account of their own (the one
 * given, else their oldest). Everyone else is invited: existing users of the creator's tenant (an
 * unknown user and another tenant's get the same answer); an account is theirs to choose when they
 * accept, so naming one for them is refused. No duplicates; size within
 * MICROFINANCE_GROUP_MIN/MAX_MEMBERS. Opens the guarantee fund account.
 */
export async function createGroup(p: Principal, input: { name: string; members: MemberInput[]; liabilityType?: 'joint' }): Promise<Group> {
  const name = input.name.trim();
  if (name === '') throw new DomainError('VALIDATION_ERROR', 'name must not be blank', '/name');
  const seen = new Set<string>();
  input.members.forEach((m, i) => {
    if (seen.has(m.userId)) throw new DomainError('MF_DUPLICATE_MEMBER', `user ${m.userId} is listed twice`, `/members/${i}`);
    seen.add(m.userId);
    if (m.accountId !== undefined && m.userId !== p.userId) {
      throw new DomainError('VALIDATION_ERROR', 'an invited member chooses their own account when accepting; account_id is only for yourself', `/members/${i}/account_id`);
    }
  });
  const members = input.members.map((m) => ({ ...m, role: m.role ?? 'member' }));
  const self = members.find((m) => m.userId === p.userId);
  if (self) self.role = 'leader';
  else if (!p.isAdmin) members.unshift({ userId: p.userId, role: 'leader' });
  if (members.filter((m) => m.role === 'leader').length > 1) throw new DomainError('MF_GROUP_LEADER', 'a group has one leader', '/members');
  if (!members.some((m) => m.role === 'leader')) members[0].role = 'leader';
  const { min, max } = groupSizeLimits();
  if (members.length < min || members.length > max) {
    throw new DomainError('MF_GROUP_SIZE', `a group has between ${min} and ${max} members (got ${members.length})`, '/members', { min, max });
  }

  return withTransaction(async (c) => {
    const creator = await c.query<{ tenant_id: string | null }>('SELECT tenant_id FROM users WHERE id = $1', [p.userId]);
    const tenantId = creator.rows[0]?.tenant_id ?? null;
    const resolved: Array<{ userId: string; accountId: string | null; role: MemberRole; status: MemberStatus }> = [];
    for (const [i, m] of members.entries()) {
      const pointer = `/members/${Math.max(0, input.members.findIndex((x) => x.userId === m.userId))}`;
      const u = await c.query('SELECT 1 FROM users WHERE id = $1 AND tenant_id IS NOT DISTINCT FROM $2', [m.userId, tenantId]);
      // Unknown and another tenant's user get the same answer: nothing about other tenants leaks.
      if (u.rowCount === 0) throw new DomainError('MF_MEMBER_NOT_FOUND', `user ${m.userId} is not a customer here`, pointer);
      // Only the creator joins now (with an account of their own); the others are invited.
      const joins = m.userId === p.userId;
      resolved[i] = { userId: m.userId, accountId: joins ? await memberAccount(c, m.userId, p.environment, m.accountId, `${pointer}/account_id`) : null, role: m.role, status: joins ? 'accepted' : 'invited' };
    }
    const id = newId('mfg');
    const leader = resolved.find((m) => m.role === 'leader')!;
    const fund = await createAccount(
      { userId: leader.userId, environment: p.environment, name: `${name.slice(0, 200)} guarantee fund`, type: 'savings', metadata: { mf_group_id: id, purpose: 'mf_guarantee_fund' } },
      c,
    );
    await c.query(
      `INSERT INTO mf_groups (id, environment, tenant_id, name, liability_type, guarantee_account_id, created_by) VALUES ($1, $2, $3, $4, 'joint', $5, $6)`,
      [id, p.environment, tenantId, name, fund.id, p.userId],
    );
    // Frozen from the start: nothing but the group's own rules takes money out of it (fund.ts).
    await freezeAccount(fund.id, { reason: `guarantee fund of group ${id}: it moves only by the group's loan rules` }, c);
    for (const m of resolved) {
      // Joining order is the listed order (joint liability asks members in it): joined_at is the
      // transaction's time plus i milliseconds, since the column keeps milliseconds only.
      await c.query(
        `INSERT INTO mf_group_members (group_id, user_id, account_id, role, status, responded_at, joined_at)
         VALUES ($1, $2, $3, $4, $5, CASE WHEN $5 = 'accepted' THEN now() END, now() + $6 * interval '1 millisecond')`,
        [id, m.userId, m.accountId, m.role, m.status, resolved.indexOf(m)],
      );
    }
    return getGroup(p, id, c);
  });
}

/** The member's active account in the environment (the one named, else their oldest), or 422 MF_MEMBER_ACCOUNT_REQUIRED. */
async function memberAccount(c: Queryable, userId: string, environment: Environment, accountId: string | undefined, pointer: string): Promise<string> {
  const a = await c.query<{ id: string }>(
    `SELECT id FROM accounts WHERE user_id = $1 AND environment = $2 AND status = 'active' AND ($3::text IS NULL OR id = $3)
     ORDER BY created_at, id LIMIT 1`,
    [userId, environment, accountId ?? null],
  );
  if (!a.rows[0]) throw new DomainError('MF_MEMBER_ACCOUNT_REQUIRED', `${accountId ? 'that is not one of your active accounts' : `you have no active account`} in ${environment}`, accountId ? pointer : undefined);
  return a.rows[0].id;
}

/**
 * The invited customer answers. Accepting makes them liable for the group's loans with the account
 * they choose (named, else their oldest active one): joined now. Declining is final. Answering
 * again the same way is answered alike; a group no longer pending takes no answer.
 */
export async function answerInvitation(p: Principal, id: string, answer: { accept: true; accountId?: string } | { accept: false }): Promise<Group> {
  return withTransaction(async (c) => {
    const g = await getGroup(p, id, c, true);
    const me = g.members.find((m) => m.userId === p.userId);
    if (!me) throw notFound(id);
    const wanted: MemberStatus = answer.accept ? 'accepted' : 'declined';
    if (me.status === wanted) return g;
    if (me.status !== 'invited') throw new DomainError('MF_INVALID_STATE', `you have already ${me.status} this group`);
    if (g.status !== 'pending') throw new DomainError('MF_INVALID_STATE', `group is ${g.status}`);
    const accountId = answer.accept ? await memberAccount(c, p.userId, p.environment, answer.accountId, '/account_id') : null;
    await c.query(
      `UPDATE mf_group_members SET status = $3, account_id = $4, responded_at = now(), joined_at = CASE WHEN $3 = 'accepted' THEN now() ELSE joined_at END
        WHERE group_id = $1 AND user_id = $2`,
      [id, p.userId, wanted, accountId],
    );
    return getGroup(p, id, c);
  });
}

async function transition(p: Principal, id: string, fn: (g: Group, c: pg.PoolClient) => Promise<void>): Promise<Group> {
  return withTransaction(async (c) => {
    const g = await getGroup(p, id, c, true);
    await fn(g, c);
    return getGroup(p, id, c);
  });
}

/** Operator: pending → active. */
export async function activateGroup(p: Principal, id: string): Promise<Group> {
  return transition(p, id, async (g, c) => {
    if (g.status === 'active') return;
    if (g.status !== 'pending') throw new DomainError('MF_INVALID_STATE', `group is ${g.status}`);
    const open = g.members.filter((m) => m.status === 'invited').length;
    if (open > 0) throw new DomainError('MF_MEMBERS_PENDING', `${open} invited member(s) have not answered; a group is activated once every invitation is answered`);
    const accepted = g.members.filter((m) => m.status === 'accepted').length;
    const { min } = groupSizeLimits();
    if (accepted < min) throw new DomainError('MF_GROUP_SIZE', `a group needs ${min} accepted members (has ${accepted})`, undefined, { min });
    await c.query(`UPDATE mf_groups SET status = 'active', activated_at = now() WHERE id = $1`, [id]);
  });
}

/**
 * Operator: → closed, when no loan of the group is open (applied, approved or active). The
 * guarantee fund goes back to the members in the same transaction and is closed (fund.ts).
 */
export async function closeGroup(p: Principal, id: string): Promise<Group> {
  return transition(p, id, async (g, c) => {
    if (g.status === 'closed') return;
    const open = await c.query(`SELECT 1 FROM mf_loans WHERE group_id = $1 AND status IN ('applied', 'approved', 'active') LIMIT 1`, [id]);
    if (open.rowCount) throw new DomainError('MF_INVALID_STATE', 'the group has open loans');
    await returnFund(g, c);
    await c.query(`UPDATE mf_groups SET status = 'closed', closed_at = now() WHERE id = $1`, [id]);
  });
}
