import type pg from 'pg';
import { custodyAddress } from '../chains/custody';
import { addAmounts, compareAmounts, isZeroAmount } from '../money/amount';

/**
 * Money that left the platform left the customer's books (issue 41, docs/security.md "What we
 * guarantee"). For every finished operation that sends value to a party outside the platform, the
 * customer's own books (every chain book of the record's account, in the record's asset) changed
 * across the operation's posted entries by exactly minus what the operation charged: what left plus
 * its fee. And no other customer's book was credited by those entries: value that went out is not
 * also kept inside.
 *
 * Each kind names its record table, its final states, the entries it posted and what the customer
 * was charged, from the record's own columns, never from the entries (the entries are what is
 * checked). A bridge's "outside" is decided here independently of the code that posts it: the
 * recipient is the account's custody address on the destination chain (then only the fee is
 * charged: the rest stays the customer's, on another chain) or it is not (then all of it left).
 *
 * Runs with the money invariants after every test file and after the chaos run, so every outbound
 * operation any test performs is checked; `npm test` counts the records checked per kind over the
 * whole run and fails when a kind was never exercised (scripts/test.mjs, OUTFLOW_TALLY_FILE).
 */
export interface OutflowKind {
  kind: string;
  /** SELECT … FROM the record table: id, account_id, asset, entry_ids (text[]), charged (text), and `extra` for `charged` decided in code. */
  sql: string;
  /** What the customer was charged, when it depends on more than SQL can know (a bridge's custody address). */
  charged?: (row: OutflowRow) => string;
  /** Sub-kinds counted apart (each must be exercised), and which one a record is. */
  variants?: { names: string[]; of: (row: OutflowRow) => string };
}

export interface OutflowRow {
  id: string;
  account_id: string;
  asset: string;
  entry_ids: string[];
  charged: string;
  extra: Record<string, string> | null;
}

const toCustody = (r: OutflowRow) => r.extra!.recipient === custodyAddress(r.account_id, r.extra!.chain);

export const OUTFLOW_KINDS: readonly OutflowKind[] = [
  {
    // ISO 20022 / ACH credit transfers, open-banking payments and ACH file entries (all rail payments).
    kind: 'rail_payment',
    sql: `SELECT r.id, r.account_id, r.currency AS asset, ARRAY[r.reservation_entry_id] AS entry_ids, r.amount::text AS charged, NULL::jsonb AS extra
            FROM rail_payments r WHERE r.status IN ('settled', 'completed')`,
  },
  {
    // Interledger: the quote's send amount (delivered amount plus fee) leaves the sender's book.
    kind: 'ilp_payment',
    sql: `SELECT p.id, p.account_id, q.send_currency AS asset, ARRAY[p.entry_id] AS entry_ids, q.send_amount::text AS charged, NULL::jsonb AS extra
            FROM ilp_payments p JOIN ilp_quotes q ON q.id = p.quote_id WHERE p.status = 'completed'`,
  },
  {
    kind: 'bridge',
    sql: `SELECT b.id, b.account_id, b.asset_code AS asset, ARRAY[b.reservation_entry_id, b.settlement_entry_id] AS entry_ids, NULL AS charged,
                 jsonb_build_object('amount', b.amount::text, 'fee', b.fee_amount::text, 'chain', b.destination_chain, 'recipient', b.recipient_address) AS extra
            FROM bridge_transfers b WHERE b.status = 'completed'`,
    charged: (r) => (toCustody(r) ? r.extra!.fee : r.extra!.amount),
    variants: { names: ['outside', 'own_custody'], of: (r) => (toCustody(r) ? 'own_custody' : 'outside') },
  },
  {
    // Cash paid out over a microfinance teller's counter.
    kind: 'teller_cash_withdrawal',
    sql: `SELECT t.id, t.account_id, t.currency AS asset, ARRAY[t.entry_id] AS entry_ids, t.amount::text AS charged, NULL::jsonb AS extra
            FROM mf_teller_transactions t WHERE t.type = 'cash_withdrawal'`,
  },
];

export interface OutflowReport {
  problems: string[];
  /** Records checked per kind. */
  checked: Record<string, number>;
}

/**
 * Each record with the effect of its posted entries, in its asset: `own` on the record's account
 * (credits minus debits: customer books are credit-normal), `others` credited to any other customer account.
 */
const withEffect = (sql: string) => `
  WITH r AS (${sql})
  SELECT r.*, fx.own, fx.others FROM r, LATERAL (
    SELECT COALESCE(SUM(CASE WHEN l.account_id = r.account_id THEN (CASE l.direction WHEN 'credit' THEN l.amount ELSE -l.amount END) END), 0)::text AS own,
           COALESCE(SUM(CASE WHEN l.account_id <> r.account_id AND l.direction = 'credit' THEN l.amount END), 0)::text AS others
      FROM ledger_lines l
     WHERE l.entry_id = ANY(r.entry_ids) AND l.status = 'posted' AND l.asset_code = r.asset) fx
  ORDER BY r.id`;

export async function checkOutflows(client: pg.ClientBase): Promise<OutflowReport> {
  const report: OutflowReport = { problems: [], checked: {} };
  for (const k of OUTFLOW_KINDS) {
    const { rows } = await client.query<OutflowRow & { own: string; others: string }>(withEffect(k.sql));
    if (k.variants) for (const v of k.variants.names) report.checked[`${k.kind}:${v}`] = 0;
    else report.checked[k.kind] = rows.length;
    for (const r of rows) {
      if (k.variants) report.checked[`${k.kind}:${k.variants.of(r)}`] += 1;
      const charged = k.charged ? k.charged(r) : r.charged;
      if (compareAmounts(addAmounts(r.own, charged), '0') !== 0) {
        report.problems.push(`${k.kind} ${r.id}: the customer's books changed by ${r.own} ${r.asset} across its entries, expected -${charged} (what left plus its fee)`);
      }
      if (!isZeroAmount(r.others)) {
        report.problems.push(`${k.kind} ${r.id}: its entries credited ${r.others} ${r.asset} to another customer's books, but the money left the platform`);
      }
    }
  }
  return report;
}
