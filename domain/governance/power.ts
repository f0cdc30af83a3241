/**
 * Voting power, read from ledger history as of the proposal's snapshot, never from live balances:
 * units moved to another account after the snapshot give that account nothing (the sender keeps
 * its snapshot power), and units received after it count for nothing. A line counts when it was
 * posted at or before the snapshot (completed_at is the posting instant, clock_timestamp()).
 */
import { getPool, type Queryable } from '../db/pool';
import { DecimalMoney as D } from '../money/amount';
import type { Environment } from '../platform/environment';

/** A user's basket balance at `at`: their customer ledger accounts' posted lines (credit +, debit -). */
export async function votingPowerAt(userId: string, environment: Environment, basketCode: string, at: Date, c: Queryable = getPool()): Promise<string> {
  const { rows } = await c.query<{ p: string | null }>(
    `SELECT sum(CASE WHEN l.direction = 'credit' THEN l.amount ELSE -l.amount END)::text AS p
       FROM ledger_accounts la JOIN ledger_lines l ON l.ledger_account_id = la.id
      WHERE la.kind = 'customer' AND la.user_id = $1 AND la.environment = $2 AND la.asset_code = $3
        AND l.status = 'posted' AND l.completed_at <= $4`,
    [userId, environment, basketCode, at],
  );
  return new D(rows[0]?.p ?? '0').toFixed();
}

/**
 * Units outstanding at `at`: the basket's issuance account (debit-normal; domain/baskets/reserve.ts)
 * as of then. It mirrors the units on customer accounts, so it is the sum of everyone's power.
 */
export async function eligiblePowerAt(environment: Environment, basketCode: string, at: Date, c: Queryable = getPool()): Promise<string> {
  const { rows } = await c.query<{ p: string | null }>(
    `SELECT sum(CASE WHEN l.direction = 'debit' THEN l.amount ELSE -l.amount END)::text AS p
       FROM ledger_accounts la JOIN ledger_lines l ON l.ledger_account_id = la.id
      WHERE la.environment = $1 AND la.asset_code = $2 AND la.code = $3
        AND l.status = 'posted' AND l.completed_at <= $4`,
    [environment, basketCode, `basket_issuance:${basketCode}`, at],
  );
  return new D(rows[0]?.p ?? '0').toFixed();
}
