import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimalString } from '../../api/schemas';
import { statusRefusal } from '../../domain/accounts/status';
import { closePool, getPool } from '../../domain/db/pool';
import { readSqlFunctions, SQL_FUNCTIONS_DIR } from '../../domain/db/sql-functions';
import { TRANSACTION_TYPES } from '../../domain/ledger/transactions';
import { AMOUNT_PATTERN, AmountError, parseAmount } from '../../domain/money/amount';
import { useTestDatabase } from '../helpers/db';

// One definition per ledger rule (docs/ledger.md "Rules"): the SQL rule functions are shared by
// ledger__post and the set-wise batch, and the TypeScript copies of a rule agree with the SQL one.

/** The two paths that decide whether a posting is accepted. */
const PATHS = ['ledger__post', 'transfers_create_immediate_batch_setwise'] as const;

describe('rules without a database', () => {
  it('account status: a frozen or closed source, a closed destination', () => {
    const code = (side: 'from' | 'to', status: string) => statusRefusal(side, status)?.code ?? null;
    expect(code('from', 'active')).toBe(null);
    expect(code('from', 'frozen')).toBe('ACCOUNT_FROZEN');
    expect(code('from', 'closed')).toBe('ACCOUNT_CLOSED');
    expect(code('to', 'active')).toBe(null);
    expect(code('to', 'frozen')).toBe(null); // a frozen account still receives
    expect(code('to', 'closed')).toBe('DESTINATION_CLOSED');
    expect(statusRefusal('from', 'frozen')).toMatchObject({ message: 'The source account is frozen', pointer: '/from_account' });
    expect(statusRefusal('to', 'closed')).toMatchObject({ message: 'The destination account is closed', pointer: '/to_account' });
  });

  it('amount syntax: one pattern for the domain and the API schema', () => {
    expect(decimalString.pattern).toBe(AMOUNT_PATTERN);
    const code = (v: unknown, precision = 2) => {
      try {
        return parseAmount(v, precision);
      } catch (err) {
        return (err as AmountError).code;
      }
    };
    expect(code('10.5')).toBe('10.50');
    expect(code('0010')).toBe('10.00');
    expect(code('1e3')).toBe('INVALID_AMOUNT');
    expect(code('.5')).toBe('INVALID_AMOUNT');
    expect(code('-1')).toBe('AMOUNT_NOT_POSITIVE');
    expect(code('0.00')).toBe('AMOUNT_NOT_POSITIVE');
    expect(code('0.001')).toBe('AMOUNT_PRECISION'); // precision is judged before zero
    expect(code(10)).toBe('INVALID_AMOUNT');
  });
});

/**
 * A function's body (its prosrc) as its file prisma/sql/functions/<name>.sql gives it, the
 * definition every database has (tests/platform/schema.test.ts).
 */
async function source(name: string): Promise<string> {
  const sql = await readFile(path.join(SQL_FUNCTIONS_DIR, `${name}.sql`), 'utf8');
  const body = /\bAS\s+(\$[A-Za-z_]*\$)([\s\S]*?)\1/i.exec(sql);
  expect(body, name).not.toBeNull();
  return body![2];
}
const rulesCalledBy = (src: string) => [...new Set([...src.matchAll(/\b(ledger__rule_[a-z_]+)\s*\(/g)].map((m) => m[1]))].sort();

describe('rules in the function files', () => {
  it('every ledger__rule_* function is called by both ledger__post and the set-wise batch', async () => {
    const defined = (await readSqlFunctions()).map((f) => f.name).filter((n) => n.startsWith('ledger__rule_')).sort();
    expect(defined).toEqual(
      expect.arrayContaining([
        'ledger__rule_amount',
        'ledger__rule_asset',
        'ledger__rule_balance_limit',
        'ledger__rule_environment',
        'ledger__rule_funds',
        'ledger__rule_status',
      ]),
    );
    const [post, setWise] = await Promise.all(PATHS.map(async (p) => rulesCalledBy(await source(p))));
    const onlyPost = post.filter((r) => !setWise.includes(r));
    const onlySetWise = setWise.filter((r) => !post.includes(r));
    expect({ onlyPost, onlySetWise }, 'a rule decided by one path and not the other').toEqual({ onlyPost: [], onlySetWise: [] });
    // And none is defined without being used (a rule nobody calls is a rule restated somewhere).
    expect(post).toEqual(defined);
    // Posting a pending entry judges account status by the same rule.
    expect(rulesCalledBy(await source('ledger__resolve'))).toContain('ledger__rule_status');
  });

  it('neither path restates a rule inline', async () => {
    for (const p of PATHS) {
      const src = await source(p);
      expect(src, p).not.toMatch(/'transfer_in'/); // the transaction types: ledger__rule_txn_type
      // Amount syntax and precision: ledger__rule_amount. (ledger__post's request hash still reads
      // amounts with a regex of its own: that formula is fixed by the hashes already stored.)
      expect(src, p).not.toContain(AMOUNT_PATTERN);
      expect(src, p).not.toMatch(/split_part\(|\{1,20\}/);
      expect(src, p).not.toMatch(/ledger__over_balance_limit\s*\(/); // ledger__rule_balance_limit
    }
    for (const p of [...PATHS, 'ledger__resolve']) expect(await source(p), p).not.toMatch(/status = 'frozen'/); // ledger__rule_status
  });
});

describe('rules in the ledger schema', () => {
  beforeAll(async () => {
    await useTestDatabase();
  });
  afterAll(async () => closePool());

  it('rule functions are single SQL expressions the planner can inline', async () => {
    const { rows } = await getPool().query<{ name: string; lang: string; volatility: string; strict: boolean; secdef: boolean; config: string[] | null; src: string }>(
      `SELECT p.proname AS name, l.lanname AS lang, p.provolatile AS volatility, p.proisstrict AS strict, p.prosecdef AS secdef,
              p.proconfig AS config, p.prosrc AS src
         FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = current_schema() AND p.proname LIKE 'ledger\\_\\_rule\\_%'`,
    );
    for (const r of rows) {
      expect({ name: r.name, lang: r.lang, volatility: r.volatility, strict: r.strict, secdef: r.secdef, config: r.config }).toEqual({
        name: r.name,
        lang: 'sql',
        volatility: 'i',
        strict: false,
        secdef: false,
        config: null,
      });
      expect(r.src.trim(), r.name).toMatch(/^SELECT\b/i);
      expect(r.src, r.name).not.toMatch(/(?<!DISTINCT )\bFROM\b|;/i); // no table, one statement
    }
    // What the planner makes of a call: the expression itself, no function left.
    const plan = await getPool().query<{ 'QUERY PLAN': string }>(
      `EXPLAIN VERBOSE SELECT ledger__rule_status(status, normal_balance = 'debit', false),
              ledger__rule_funds(no_overdraft, overdraft_allowance, ledger__deficit(normal_balance, debits_posted, debits_pending, credits_posted, credits_pending)),
              ledger__rule_balance_limit(kind, normal_balance, debits_posted, debits_pending, credits_posted, credits_pending, 100),
              ledger__rule_amount(id, 2), ledger__rule_amount_type(id), ledger__rule_environment(environment, 'sandbox'),
              ledger__rule_asset(true, asset_code, 'USD'), ledger__rule_direction(normal_balance), ledger__rule_txn_type(id),
              ledger__rule_balanced(debits_posted)
         FROM ledger_accounts`,
    );
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).not.toMatch(/ledger__/);
  });

  it('TRANSACTION_TYPES is the ledger_lines.txn_type CHECK and ledger__rule_txn_type', async () => {
    const { rows } = await getPool().query<{ def: string }>(
      `SELECT pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
        WHERE c.conrelid = 'ledger_lines'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%txn_type%'`,
    );
    expect(rows).toHaveLength(1);
    const inCheck = [...rows[0].def.matchAll(/'([^']+)'::text/g)].map((m) => m[1]);
    expect([...inCheck].sort()).toEqual([...TRANSACTION_TYPES].sort());

    const judged = await getPool().query<{ t: string; code: string | null }>(
      `SELECT t, ledger__rule_txn_type(t) AS code FROM unnest($1::text[]) t`,
      [[...TRANSACTION_TYPES, 'transfer', 'Deposit', '']],
    );
    expect(Object.fromEntries(judged.rows.map((r) => [r.t, r.code]))).toEqual({
      ...Object.fromEntries(TRANSACTION_TYPES.map((t) => [t, null])),
      transfer: 'INVALID_ENTRY',
      Deposit: 'INVALID_ENTRY',
      '': 'INVALID_ENTRY',
    });
    expect((await getPool().query(`SELECT ledger__rule_txn_type(NULL) AS code`)).rows[0].code).toBe(null); // none given: derived
  });

  it('ledger__rule_amount mirrors parseAmount on a table of spellings', async () => {
    expect(await source('ledger__rule_amount')).toContain(`'${AMOUNT_PATTERN}'`);
    const spellings = [
      '1', '1.5', '1.50', '1.505', '0', '0.0', '0.00', '0.000', '0.01', '00.10', '0010', '000000000000000000000000001',
      '99999999999999999999', '99999999999999999999.99', '100000000000000000000', '123456789012345678901234567890',
      '-1', '-0', '-0.001', '-1.5', '+1', '.5', '5.', '1.', '1..2', '1.2.3', '1e3', '1E3', '0x10', '1_000', '1,000', '1 000',
      ' 1', '1 ', '1\n', '\n1', '', '-', '.', 'NaN', 'Infinity', 'abc', '١', '１', '1.٥', '²',
    ];
    const precisions = [0, 2, 8, 18];
    const ts = (v: string, precision: number) => {
      try {
        parseAmount(v, precision);
        return null;
      } catch (err) {
        return (err as AmountError).code;
      }
    };
    const { rows } = await getPool().query<{ v: string; p: number; code: string | null }>(
      `SELECT v, p, ledger__rule_amount(v, p) AS code FROM unnest($1::text[]) v CROSS JOIN unnest($2::int[]) p`,
      [spellings, precisions],
    );
    expect(rows).toHaveLength(spellings.length * precisions.length);
    const disagree = rows.filter((r) => r.code !== ts(r.v, r.p)).map((r) => ({ spelling: r.v, precision: r.p, sql: r.code, ts: ts(r.v, r.p) }));
    expect(disagree).toEqual([]);
    expect(rows.some((r) => r.code === null)).toBe(true);
    expect(new Set(rows.map((r) => r.code))).toEqual(new Set([null, 'INVALID_AMOUNT', 'AMOUNT_NOT_POSITIVE', 'AMOUNT_PRECISION']));
    // A missing amount (JSON null or absent) is refused as well.
    expect((await getPool().query(`SELECT ledger__rule_amount(NULL, 2) AS code`)).rows[0].code).toBe('INVALID_AMOUNT');
  });

  it('ledger__amount keeps its messages', async () => {
    const message = async (v: string | null) => {
      try {
        await getPool().query(`SELECT ledger__amount($1, 2)`, [v]);
        return 'accepted';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(await message('1.50')).toBe('accepted');
    expect(await message(null)).toBe('INVALID_AMOUNT: amount is required');
    expect(await message('-1.5')).toBe('AMOUNT_NOT_POSITIVE: amount must be positive: -1.5');
    expect(await message('1e3')).toBe('INVALID_AMOUNT: malformed amount: 1e3');
    expect(await message('123456789012345678901')).toBe('INVALID_AMOUNT: amount too large');
    expect(await message('1.001')).toBe('AMOUNT_PRECISION: amount 1.001 has more than 2 decimals');
    expect(await message('0.00')).toBe('AMOUNT_NOT_POSITIVE: amount must be positive');
  });

  it('ledger__rule_status refuses what statusRefusal refuses (source: a debit, destination: a credit)', async () => {
    const { rows } = await getPool().query<{ s: string; debit: boolean; forced: boolean; code: string | null }>(
      `SELECT s, debit, forced, ledger__rule_status(s, debit, forced) AS code
         FROM unnest(ARRAY['active', 'frozen', 'closed']) s, unnest(ARRAY[true, false]) debit, unnest(ARRAY[true, false]) forced`,
    );
    for (const r of rows) {
      if (!r.forced) expect(r.code !== null, `${r.s} ${r.debit ? 'debit' : 'credit'}`).toBe(statusRefusal(r.debit ? 'from' : 'to', r.s) !== null);
    }
    const codes = Object.fromEntries(rows.map((r) => [`${r.s} ${r.debit ? 'debit' : 'credit'}${r.forced ? ' forced' : ''}`, r.code]));
    expect(codes).toMatchObject({
      'frozen debit': 'ACCOUNT_FROZEN',
      'frozen debit forced': null, // a claw-back reversal
      'frozen credit': null,
      'closed credit': 'ACCOUNT_CLOSED',
      'closed debit forced': 'ACCOUNT_CLOSED',
      'active debit': null,
    });
  });
});
