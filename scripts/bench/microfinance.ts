// The daily IFRS 9 provisioning run (domain/microfinance/provisioning/run.ts, the function the
// workflow's activity calls) over 10,000 active microfinance loans of one currency on a throw-away
// database: schedules of 12 monthly instalments seeded set-wise with varied arrears (about 70 %
// current, 15 % 31–90 days past due, 15 % over 90). Reports the run's seconds (target < 30 s),
// a same-day re-run (posts nothing), and that the allowance account equals the sum of ECLs.
// Run: npx tsx scripts/bench/microfinance.ts   (LOANS=… to change the count)
import { pathToFileURL } from 'node:url';
import { getPool } from '../../domain/db/pool';
import { createAccount } from '../../domain/accounts';
import { registerUser } from '../../domain/auth/users';
import { closePrisma } from '../../domain/db/prisma';
import { allowanceBalance, runProvisioning } from '../../domain/microfinance/provisioning';
import { withBenchDatabase } from './common';

const LOANS = Number.parseInt(process.env.LOANS ?? '10000', 10);
const RUN_DATE = '2026-09-15';

async function seed(): Promise<void> {
  const pool = getPool();
  const user = await registerUser('Bench Borrower', `bench.${Date.now()}@example.test`, 'correct horse battery staple');
  if (!user) throw new Error('could not register the bench user');
  const accountId = (await createAccount({ userId: user.id, environment: 'sandbox', name: 'bench borrower' })).id;
  await pool.query(`INSERT INTO mf_groups (id, environment, name, liability_type, status, created_by) VALUES ('mfgrp_bench', 'sandbox', 'bench', 'joint', 'active', $1)`, [user.id]);
  await pool.query(
    `INSERT INTO mf_loan_products (id, environment, name, currency, principal_min, principal_max, annual_interest_rate, interest_method, term_instalments, repayment_frequency)
     VALUES ('mfprod_bench', 'sandbox', 'bench', 'USD', 1, 100000, 0.24, 'flat', 12, 'monthly')`,
  );
  // Loan n: principal 1,200 + n mod 1,000; disbursed 2026-01-01 + n mod 120 days (some not yet due).
  await pool.query(
    `INSERT INTO mf_loans (id, environment, group_id, user_id, account_id, product_id, currency, principal, annual_interest_rate, interest_method,
       term_instalments, repayment_frequency, status, workflow_id, disbursed_on)
     SELECT 'loan_bench_' || n, 'sandbox', 'mfgrp_bench', $1, $2, 'mfprod_bench', 'USD', 1200 + n % 1000, 0.24, 'flat', 12, 'monthly', 'active',
            'wf_bench_' || n, DATE '2026-01-01' + (n % 120)
     FROM generate_series(1, $3::int) n`,
    [user.id, accountId, LOANS],
  );
  // Instalments: equal principal (last one takes the remainder), flat interest 2 % a month; paid up
  // to an arrears point: bucket 0..69 current, 70..84 stopped paying ~2 months ago, 85..99 ~5 months ago.
  await pool.query(
    `INSERT INTO mf_loan_instalments (loan_id, number, due_date, principal_due, interest_due, principal_paid, interest_paid, paid_on)
     SELECT l.id, k, (l.disbursed_on + make_interval(months => k))::date,
            CASE WHEN k < 12 THEN round(l.principal / 12, 2) ELSE l.principal - 11 * round(l.principal / 12, 2) END,
            round(l.principal * 0.02, 2),
            CASE WHEN paid THEN CASE WHEN k < 12 THEN round(l.principal / 12, 2) ELSE l.principal - 11 * round(l.principal / 12, 2) END ELSE 0 END,
            CASE WHEN paid THEN round(l.principal * 0.02, 2) ELSE 0 END,
            CASE WHEN paid THEN (l.disbursed_on + make_interval(months => k))::date END
     FROM mf_loans l CROSS JOIN generate_series(1, 12) k
     CROSS JOIN LATERAL (SELECT (l.disbursed_on + make_interval(months => k))::date <= $1::date - CASE
              WHEN substr(l.id, 12)::int % 100 < 70 THEN 0
              WHEN substr(l.id, 12)::int % 100 < 85 THEN 45 + substr(l.id, 12)::int % 40
              ELSE 100 + substr(l.id, 12)::int % 80 END AS paid) p
     WHERE l.id LIKE 'loan_bench_%'`,
    [RUN_DATE],
  );
  await pool.query('ANALYZE mf_loans; ANALYZE mf_loan_instalments');
}

export async function benchMicrofinance(): Promise<void> {
  await withBenchDatabase(async () => {
    try {
      let t = performance.now();
      await seed();
      console.log(`seeded ${LOANS} active loans with 12 instalments each in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      t = performance.now();
      const run = await runProvisioning({ environment: 'sandbox', currency: 'USD', runDate: RUN_DATE });
      const seconds = (performance.now() - t) / 1000;
      const { rows } = await getPool().query<{ stage: number; n: number }>('SELECT stage, count(*)::int AS n FROM mf_loan_provisions GROUP BY stage ORDER BY stage');
      t = performance.now();
      const again = await runProvisioning({ environment: 'sandbox', currency: 'USD', runDate: RUN_DATE });
      const rerun = (performance.now() - t) / 1000;
      const balance = await allowanceBalance('sandbox', 'USD');
      const { rows: sum } = await getPool().query<{ s: string }>('SELECT sum(ecl)::numeric(38,2)::text AS s FROM mf_loan_provisions');
      console.log(`provisioning run: ${run.loans} loans in ${seconds.toFixed(2)} s (target < 30 s) ${seconds < 30 ? 'OK' : 'SLOW'}`);
      console.log(`  stages: ${rows.map((r) => `${r.stage}: ${r.n}`).join(', ')}; total ECL ${run.totalEcl} USD`);
      console.log(`  same-day re-run: ${rerun.toFixed(3)} s, same run ${again.id === run.id}`);
      console.log(`  allowance ${balance} = sum of ECLs ${sum[0].s}: ${balance === sum[0].s && balance === run.totalEcl ? 'yes' : 'NO'}`);
    } finally {
      await closePrisma();
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchMicrofinance();
  process.exit(0);
}
