/**
 * A joint-liability group's guarantee fund moves only by the rules of the group's loans: joint
 * liability draws on it for an arrear (liability.ts), and the group's closure returns it to the
 * members (returnFund). The account is frozen for its whole life (groups.ts opens it frozen;
 * domain/accounts refuses to unfreeze or close it: ACCOUNT_HELD_BY_GROUP), so no withdrawal,
 * transfer, swap or payment of its custodian (the leader) takes money out of it, while payments
 * into it still arrive. The two movements above post through postGuaranteeFundEntry, which lets a
 * fund pay and never takes it below zero (prisma/sql/functions/ledger_post_guarantee_fund_entry.sql).
 *
 * Return at closure: each asset's balance goes back in one balanced entry, pro rata to what each
 * member paid in. What a member paid in is the sum of the fund's posted credits from entries that
 * debit an account of that member (a transfer from any of their accounts), or, for a cash deposit
 * (which only the fund's owner can make), from entries of type deposit made by that member; an
 * entry later reversed counts for nobody. Money nobody of the group paid in (an outsider's
 * transfer, a rail) is shared in the same proportions. When nothing of an asset can be attributed,
 * the accepted members share it equally. Shares are rounded down to the asset's minor unit and the
 * units left over go one each to the largest remainders (ties: the leader, then by joining date).
 * Each share is paid into the member's group account, else their oldest account still open.
 */
import type Decimal from 'decimal.js';
import type pg from 'pg';
import { closeAccount, ensureCustomerLedgerAccount } from '../accounts';
import { postGuaranteeFundEntry, type LineInput } from '../ledger';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';

/** The fund's available balance in `currency`, its ledger account locked until the transaction ends (the draw posts under the same lock). */
export async function lockedFundAvailable(fundId: string, currency: string, c: pg.PoolClient): Promise<string> {
  const { rows } = await c.query<{ available: string }>(
    `SELECT round(la.credits_posted - la.debits_posted - la.debits_pending, a.precision)::text AS available
       FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
      WHERE la.account_id = $1 AND la.asset_code = $2 AND la.chain = '' AND la.status <> 'closed'
      FOR UPDATE OF la`,
    [fundId, currency],
  );
  return rows[0] && new D(rows[0].available).gt(0) ? rows[0].available : '0';
}

type Book = { id: string; asset_code: string; balance: string; pending: boolean; precision: number };

/** Returns the fund to the members (one entry) and closes it, in the closing group's transaction. */
/** What the return needs of a group (structural, as groups.ts's Group has it: groups.ts imports this module). */
export interface FundGroup {
  id: string;
  environment: Environment;
  guaranteeAccountId: string | null;
  members: ReadonlyArray<{ userId: string; status: string }>;
}

export async function returnFund(g: FundGroup, c: pg.PoolClient): Promise<string | null> {
  const fundId = g.guaranteeAccountId;
  if (!fundId) return null;
  // The lock order of domain/accounts: the account row, then its ledger accounts in id order.
  await c.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [fundId]);
  const { rows: books } = await c.query<Book>(
    `SELECT la.id, la.asset_code, a.precision, round(la.credits_posted - la.debits_posted, a.precision)::text AS balance,
            (la.debits_pending <> 0 OR la.credits_pending <> 0) AS pending
       FROM ledger_accounts la JOIN assets a ON a.code = la.asset_code
      WHERE la.account_id = $1 ORDER BY la.id FOR UPDATE OF la`,
    [fundId],
  );
  if (books.some((b) => b.pending)) throw new DomainError('MF_INVALID_STATE', 'the guarantee fund has movements still pending; close the group once they settle');
  const held = books.filter((b) => new D(b.balance).gt(0));
  let entryId: string | null = null;
  if (held.length > 0) {
    const paidIn = await contributions(g.id, fundId, c);
    const lines: LineInput[] = held.map((b) => ({ accountId: b.id, direction: 'debit', amount: b.balance }));
    const shares: Array<{ userId: string; asset: string; amount: string }> = [];
    for (const asset of [...new Set(held.map((b) => b.asset_code))]) {
      const total = held.filter((b) => b.asset_code === asset).reduce((s, b) => s.plus(b.balance), new D(0));
      const attributed = g.members.map((m) => ({ userId: m.userId, weight: paidIn.get(`${m.userId}|${asset}`) ?? new D(0) })).filter((w) => w.weight.gt(0));
      const weights = attributed.length > 0 ? attributed : g.members.filter((m) => m.status === 'accepted').map((m) => ({ userId: m.userId, weight: new D(1) }));
      for (const s of split(total, weights, held.find((b) => b.asset_code === asset)!.precision)) shares.push({ ...s, asset });
    }
    const accountOf = new Map<string, string>();
    for (const s of shares) {
      if (!accountOf.has(s.userId)) accountOf.set(s.userId, await payee(g, s.userId, c));
      lines.push({ accountId: await ensureCustomerLedgerAccount(accountOf.get(s.userId)!, s.asset, c), direction: 'credit', amount: s.amount });
    }
    const entry = await postGuaranteeFundEntry(
      {
        environment: g.environment,
        idempotencyKey: `mf-guarantee-return:${g.id}`,
        type: 'mf_guarantee_return',
        description: `Guarantee fund of group ${g.id} returned to its members at closure`,
        reference: g.id,
        lines,
        metadata: { mf_group_id: g.id, shares: shares.map((s) => ({ user_id: s.userId, account_id: accountOf.get(s.userId), asset_code: s.asset, amount: s.amount })) },
      },
      c,
    );
    entryId = entry.id;
  }
  await closeAccount(fundId, { releasedBy: g.id, reason: `group ${g.id} closed; its guarantee fund was returned to the members` }, c);
  return entryId;
}

/** What each member paid into the fund, by `${userId}|${asset}` (see the header for the rule). */
async function contributions(groupId: string, fundId: string, c: pg.PoolClient): Promise<Map<string, Decimal>> {
  const { rows } = await c.query<{ user_id: string; asset_code: string; paid: string }>(
    `SELECT m.user_id, l.asset_code, sum(l.amount)::text AS paid
       FROM ledger_lines l
       JOIN journal_entries e ON e.id = l.entry_id
       LEFT JOIN LATERAL (
         SELECT d.user_id FROM ledger_lines d
          WHERE d.entry_id = l.entry_id AND d.direction = 'debit' AND d.account_id IS NOT NULL AND d.account_id <> $2
          ORDER BY d.line_no LIMIT 1) payer ON true
       JOIN mf_group_members m ON m.group_id = $1
        AND m.user_id = CASE WHEN payer.user_id IS NOT NULL THEN payer.user_id WHEN e.type = 'deposit' THEN e.user_id END
      WHERE l.account_id = $2 AND l.direction = 'credit' AND l.status = 'posted' AND e.status = 'posted'
        AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id)
      GROUP BY m.user_id, l.asset_code`,
    [groupId, fundId],
  );
  return new Map(rows.map((r) => [`${r.user_id}|${r.asset_code}`, new D(r.paid)]));
}

/** `total` shared by weight: rounded down to the minor unit, the leftover units to the largest remainders (ties: listed order). */
export function split(total: Decimal, weights: Array<{ userId: string; weight: Decimal }>, precision: number): Array<{ userId: string; amount: string }> {
  const sum = weights.reduce((s, w) => s.plus(w.weight), new D(0));
  if (sum.lte(0)) throw new DomainError('MF_INVALID_STATE', 'the guarantee fund has nobody to return it to');
  const exact = weights.map((w) => total.times(w.weight).div(sum));
  const floor = exact.map((x) => x.toDecimalPlaces(precision, D.ROUND_DOWN));
  const unit = new D(1).div(new D(10).pow(precision));
  let left = total.minus(floor.reduce((s, x) => s.plus(x), new D(0))).div(unit).round().toNumber();
  const order = exact.map((x, i) => ({ i, rest: x.minus(floor[i]) })).sort((a, b) => b.rest.comparedTo(a.rest) || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    floor[i] = floor[i].plus(unit);
    left--;
  }
  return weights.map((w, i) => ({ userId: w.userId, amount: floor[i].toFixed(precision) })).filter((s) => new D(s.amount).gt(0));
}

/** Where a member's share goes: their group account unless closed, else their oldest account still open (never a fund). */
async function payee(g: FundGroup, userId: string, c: pg.PoolClient): Promise<string> {
  const { rows } = await c.query<{ id: string }>(
    `SELECT a.id FROM accounts a
       LEFT JOIN mf_group_members m ON m.group_id = $3 AND m.user_id = a.user_id
      WHERE a.user_id = $1 AND a.environment = $2 AND a.status <> 'closed'
        AND NOT EXISTS (SELECT 1 FROM mf_groups f WHERE f.guarantee_account_id = a.id)
      ORDER BY a.id = m.account_id DESC NULLS LAST, a.created_at, a.id LIMIT 1`,
    [userId, g.environment, g.id],
  );
  if (!rows[0]) throw new DomainError('MF_INVALID_STATE', `member ${userId} has no open account to receive their share of the guarantee fund`);
  return rows[0].id;
}
