import pg from 'pg';
import { checkOutflows, type OutflowReport } from './outflows';

/**
 * Money invariants of one database, checked after every test file (tests/helpers/setup-invariants.ts)
 * and after the chaos run (scripts/chaos/run.ts), and callable directly. Each returns a list of human-readable violations (empty: all hold).
 *
 * 1. Double entry: per environment and asset, the sum over all ledger accounts of
 *    (debits - credits) is zero, for posted and for pending totals; and likewise over the lines.
 * 2. Stored totals: each ledger account's four totals equal the sums of its lines by direction
 *    and status (posted lines count as posted, pending lines as pending, voided lines not at all).
 * 3. Nothing left reserved by finished work: no pending journal entry is linked to a transfer,
 *    rail payment, Interledger payment, swap, bridge transfer or flash loan in a final state.
 * 4. Money that left the platform left the customer's books (./outflows.ts): every finished outbound
 *    operation changed its customer's books by minus what left plus its fee, and no other customer's.
 */

/** Link columns from the record tables to journal_entries, with the states in which work is over. */
export const RESERVATION_LINKS: ReadonlyArray<{ table: string; column: string; finalStatuses: string[] | null }> = [
  { table: 'transfers', column: 'entry_id', finalStatuses: ['completed', 'failed', 'reversed'] },
  { table: 'rail_payments', column: 'reservation_entry_id', finalStatuses: ['completed', 'rejected', 'failed', 'returned'] },
  { table: 'ilp_payments', column: 'entry_id', finalStatuses: ['completed', 'failed'] },
  { table: 'defi_swaps', column: 'reservation_entry_id', finalStatuses: ['completed', 'failed'] },
  { table: 'defi_swaps', column: 'settlement_entry_id', finalStatuses: ['completed', 'failed'] },
  { table: 'bridge_transfers', column: 'reservation_entry_id', finalStatuses: ['completed', 'failed'] },
  { table: 'bridge_transfers', column: 'settlement_entry_id', finalStatuses: ['completed', 'failed'] },
  // A flash loan is recorded once it is over: its entry is never left pending.
  { table: 'defi_flash_loans', column: 'entry_id', finalStatuses: null },
];

export async function checkMoneyInvariants(client: pg.ClientBase): Promise<string[]> {
  return (await checkMoneyInvariantsWithTally(client)).problems;
}

/** The invariants' problems, and how many outbound records of each kind invariant 4 checked. */
export async function checkMoneyInvariantsWithTally(client: pg.ClientBase): Promise<OutflowReport> {
  const problems: string[] = [];

  const sums = await client.query<{ environment: string; asset_code: string; posted: string; pending: string }>(
    `SELECT environment, asset_code,
            SUM(debits_posted - credits_posted)::text AS posted,
            SUM(debits_pending - credits_pending)::text AS pending
     FROM ledger_accounts GROUP BY environment, asset_code
     HAVING SUM(debits_posted - credits_posted) <> 0 OR SUM(debits_pending - credits_pending) <> 0
     ORDER BY 1, 2`,
  );
  for (const r of sums.rows) {
    problems.push(`ledger accounts of ${r.environment} ${r.asset_code} do not balance: debits - credits = ${r.posted} posted, ${r.pending} pending`);
  }

  const lineSums = await client.query<{ environment: string; asset_code: string; status: string; net: string }>(
    `SELECT environment, asset_code, status,
            SUM(CASE direction WHEN 'debit' THEN amount ELSE -amount END)::text AS net
     FROM ledger_lines WHERE status IN ('posted', 'pending')
     GROUP BY environment, asset_code, status
     HAVING SUM(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0
     ORDER BY 1, 2, 3`,
  );
  for (const r of lineSums.rows) {
    problems.push(`${r.status} ledger lines of ${r.environment} ${r.asset_code} do not balance: debits - credits = ${r.net}`);
  }

  const totals = await client.query<{
    id: string;
    debits_posted: string;
    credits_posted: string;
    debits_pending: string;
    credits_pending: string;
    l_debits_posted: string;
    l_credits_posted: string;
    l_debits_pending: string;
    l_credits_pending: string;
  }>(
    `WITH l AS (
       SELECT ledger_account_id,
              SUM(amount) FILTER (WHERE direction = 'debit' AND status = 'posted') AS dp,
              SUM(amount) FILTER (WHERE direction = 'credit' AND status = 'posted') AS cp,
              SUM(amount) FILTER (WHERE direction = 'debit' AND status = 'pending') AS dq,
              SUM(amount) FILTER (WHERE direction = 'credit' AND status = 'pending') AS cq
       FROM ledger_lines GROUP BY ledger_account_id)
     SELECT a.id, a.debits_posted::text, a.credits_posted::text, a.debits_pending::text, a.credits_pending::text,
            COALESCE(l.dp, 0)::text AS l_debits_posted, COALESCE(l.cp, 0)::text AS l_credits_posted,
            COALESCE(l.dq, 0)::text AS l_debits_pending, COALESCE(l.cq, 0)::text AS l_credits_pending
     FROM ledger_accounts a LEFT JOIN l ON l.ledger_account_id = a.id
     WHERE a.debits_posted <> COALESCE(l.dp, 0) OR a.credits_posted <> COALESCE(l.cp, 0)
        OR a.debits_pending <> COALESCE(l.dq, 0) OR a.credits_pending <> COALESCE(l.cq, 0)
     ORDER BY a.id`,
  );
  for (const r of totals.rows) {
    problems.push(
      `ledger account ${r.id} totals differ from its lines: stored debits/credits posted ${r.debits_posted}/${r.credits_posted}, ` +
        `pending ${r.debits_pending}/${r.credits_pending}; lines posted ${r.l_debits_posted}/${r.l_credits_posted}, pending ${r.l_debits_pending}/${r.l_credits_pending}`,
    );
  }

  for (const link of RESERVATION_LINKS) {
    const { rows } = await client.query<{ id: string; status: string | null; entry_id: string }>(
      `SELECT r.id, ${link.finalStatuses ? 'r.status' : 'NULL'} AS status, e.id AS entry_id
       FROM "${link.table}" r JOIN journal_entries e ON e.id = r."${link.column}"
       WHERE e.status = 'pending' ${link.finalStatuses ? 'AND r.status = ANY($1::text[])' : ''}
       ORDER BY r.id`,
      link.finalStatuses ? [link.finalStatuses] : [],
    );
    for (const r of rows) {
      problems.push(`${link.table} ${r.id}${r.status ? ` is ${r.status} but` : ''} still holds pending entry ${r.entry_id} (${link.column})`);
    }
  }
  const outflows = await checkOutflows(client);
  return { problems: [...problems, ...outflows.problems], checked: outflows.checked };
}

/** Connects with its own client (the app's pool may be closed by then) and checks. */
export async function checkMoneyInvariantsAt(databaseUrl: string): Promise<string[]> {
  return (await checkMoneyInvariantsWithTallyAt(databaseUrl)).problems;
}

export async function checkMoneyInvariantsWithTallyAt(databaseUrl: string): Promise<OutflowReport> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await checkMoneyInvariantsWithTally(client);
  } finally {
    await client.end();
  }
}
