// The query facts of immediate transfers' lines are written by the transfer batch itself; every other
// posting's by the ledger_lines row trigger (both columns of the line since 20261129090000, read through
// the ai_transaction_facts view). Both must give what the read model's original projection
// (20261126040000) gives for the same lines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPool } from '../../domain/db/pool';
import { createTestApp, type TestApp } from '../helpers/app';
import { openFundedAccount } from '../transfers/helpers';

// The projection as the read model's first migration wrote it, over given lines.
const ORIGINAL = `
  SELECT n.id AS line_id, n.entry_id, n.user_id, n.environment, n.account_id, n.created_at,
         CASE WHEN e.type = 'bridge' THEN 'cross_chain_transfer'
              WHEN e.type IN ('swap', 'flash_loan') THEN 'swap'
              WHEN e.type LIKE 'basket%' THEN 'basket_buy'
              WHEN e.metadata ? 'rail_payment_id' THEN 'rail_payment'
              WHEN e.metadata ? 'ilp_payment_id' THEN 'interledger_payment'
              WHEN n.txn_type IN ('transfer_in', 'transfer_out') THEN 'transfer'
              ELSE n.txn_type END AS type,
         n.direction = 'credit' AS incoming, n.asset_code, n.amount,
         (SELECT round(n.amount * x.rate * 100)::bigint FROM exchange_rates x
           WHERE x.base_asset = n.asset_code AND x.quote_asset = 'USD' ORDER BY x.as_of DESC, x.id DESC LIMIT 1) AS usd_cents,
         n.status, coalesce(b.source_chain, nullif(la.chain, '')) AS chain, b.destination_chain, b.protocol AS bridge_protocol,
         coalesce(e.metadata->>'transfer_id', b.id, e.metadata->>'rail_payment_id', e.metadata->>'ilp_payment_id') AS subject_id,
         e.description
    FROM ledger_lines n
    JOIN journal_entries e ON e.id = n.entry_id
    JOIN ledger_accounts la ON la.id = n.ledger_account_id
    LEFT JOIN bridge_transfers b ON e.type = 'bridge' AND b.id = e.reference
   WHERE n.account_id IS NOT NULL AND n.user_id IS NOT NULL AND n.entry_id = ANY ($1::text[])
   ORDER BY n.id`;

const COLUMNS = `line_id, entry_id, user_id, environment, account_id, created_at, type, incoming, asset_code, amount, usd_cents,
                 status, chain, destination_chain, bridge_protocol, subject_id, description`;

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function factsOf(entryIds: string[]) {
  const pool = getPool();
  const expected = (await pool.query(ORIGINAL, [entryIds])).rows;
  const actual = (await pool.query(`SELECT ${COLUMNS} FROM ai_transaction_facts WHERE entry_id = ANY ($1::text[]) ORDER BY line_id`, [entryIds])).rows;
  return { expected, actual };
}

describe('query read model rows of immediate transfers', () => {
  it('a batch of concurrent transfers writes the rows the projection gives, one per customer line', async () => {
    const accounts = await Promise.all(['USD', 'USD', 'USD', 'EUR', 'EUR'].map((a) => openFundedAccount(t, t.headers, '500.00', a)));
    const pay = (from: number, to: number, amount: string, asset: string, description?: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v2/transfers',
        headers: t.headers,
        payload: { from_account: accounts[from], to_account: accounts[to], amount, asset_code: asset, workflow_enabled: false, ...(description ? { description } : {}) },
      });
    // Arriving together, they are written by the batch path (group commit), several per statement.
    const replies = await Promise.all([
      pay(0, 1, '10.00', 'USD', 'rent'),
      pay(1, 2, '2.50', 'USD'),
      pay(2, 0, '0.01', 'USD', 'change'),
      pay(3, 4, '7.25', 'EUR', 'dinner'),
      pay(4, 3, '1.00', 'EUR'),
      pay(0, 2, '3.00', 'USD'),
    ]);
    for (const r of replies) expect(r.statusCode).toBe(201);
    const ids = replies.map((r) => r.json().data.uuid as string);
    const entries = (await getPool().query<{ entry_id: string }>('SELECT entry_id FROM transfers WHERE id = ANY ($1::text[])', [ids])).rows.map((r) => r.entry_id);
    expect(entries).toHaveLength(6);

    const { expected, actual } = await factsOf(entries);
    expect(expected.length).toBeGreaterThanOrEqual(12);
    expect(actual).toEqual(expected);
    expect(new Set(actual.map((f) => f.subject_id))).toEqual(new Set(ids));
    // The amount out and in, each a transfer; the fee (when the schedule charges one) a fee.
    expect(actual.filter((f) => f.description === 'rent' && f.type === 'transfer')).toHaveLength(2);
    expect(actual.every((f) => ['transfer', 'fee'].includes(f.type) && f.status === 'posted')).toBe(true);
    // Valued at each asset's latest USD rate (EUR has one in the seeded rates).
    expect(actual.find((f) => f.asset_code === 'EUR' && f.description === 'dinner' && f.incoming)?.usd_cents).toBe('783');
  });

  it('postings outside the batch (deposits) get their facts from the trigger', async () => {
    const account = await openFundedAccount(t, t.headers, '42.00', 'USD');
    const { rows } = await getPool().query<{ entry_id: string }>(
      `SELECT DISTINCT l.entry_id FROM ledger_lines l JOIN accounts a ON a.id = l.account_id WHERE a.id = $1`,
      [account],
    );
    expect(rows).toHaveLength(1);
    const { expected, actual } = await factsOf([rows[0].entry_id]);
    expect(expected).toHaveLength(1);
    expect(actual).toEqual(expected);
    expect(actual[0].type).toBe('deposit');
  });
});
