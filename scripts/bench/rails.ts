// Payment rails: time to build a NACHA file of 10,000 entries (target < 2 s), and RTP payments per
// second through the whole workflow path (reserve, screen, pacs.008 + XSD validation, pacs.002,
// post) on a local Temporal dev server and its own database. Run: npx tsx scripts/bench/rails.ts
import { pathToFileURL } from 'node:url';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createAccount, ensureCustomerLedgerAccount } from '../../domain/accounts';
import { abaCheckDigit, buildNachaFile } from '../../domain/ach/nacha';
import { getPool } from '../../domain/db/pool';
import { postEntry, systemAccount } from '../../domain/ledger';
import { newId } from '../../domain/platform/ids';
import { ensureSanctionsList } from '../../domain/regtech/sanctions';
import { createRailPayment } from '../../domain/rails';
import { startRailPaymentWorkflow } from '../../domain/rails/workflow';
import { getTemporalClient } from '../../domain/temporal/client';
import { WORKFLOWS_PATH } from '../../worker';
import { withBenchTemporal } from './common';

const PAYMENTS = Number.parseInt(process.env.BENCH_RAIL_PAYMENTS ?? '200', 10);
const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '16', 10);

function benchNacha(): number {
  const entries = Array.from({ length: 10_000 }, (_, i) => {
    const first8 = String(10000000 + i * 7919).slice(0, 8);
    return { transaction_code: '22' as const, routing_number: first8 + abaCheckDigit(first8), account_number: String(1000000 + i), amount: `${(i % 5000) + 1}.${String(i % 100).padStart(2, '0')}`, name: `Payee ${i}`, addenda: i % 10 === 0 ? `Invoice ${i}` : undefined };
  });
  const input = {
    immediate_destination: '011000015', immediate_destination_name: 'FEDERAL RESERVE BANK', immediate_origin: '123456780', immediate_origin_name: 'BENCH BANK',
    odfi_id: '12345678', created_at: new Date(),
    batches: [{ sec_code: 'PPD' as const, company_name: 'BENCH', company_id: '1123456780', entry_description: 'PAYROLL', effective_date: '2026-11-25', entries }],
  };
  buildNachaFile(input); // warm-up
  const t0 = performance.now();
  const { summary } = buildNachaFile(input);
  const ms = performance.now() - t0;
  console.log(`NACHA file, 10,000 entries + 1,000 addenda: ${ms.toFixed(1)} ms (target < 2000 ms), ${summary.record_count} records, credit total ${summary.total_credit}`);
  return ms;
}

export async function benchRails(): Promise<void> {
  benchNacha();
  await withBenchTemporal('rail payments per second', 'bench-rails', async (address) => {
    // Creditors are screened against the loaded OFAC list, as after start-up (no list holds every payment).
    await ensureSanctionsList();
    const pool = getPool();
    const userId = newId('usr');
    await pool.query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, 'Bench', $2, 'x')`, [userId, `${userId}@bench.test`]);
    const acct = await createAccount({ userId, environment: 'sandbox', name: 'bench payer' });
    const la = await ensureCustomerLedgerAccount(acct.id, 'USD');
    await postEntry({ environment: 'sandbox', idempotencyKey: 'seed', type: 'deposit', lines: [
      { accountId: await systemAccount('sandbox', 'USD', 'funding'), direction: 'debit', amount: '100000000.00' },
      { accountId: la, direction: 'credit', amount: '100000000.00' },
    ] });
    const connection = await NativeConnection.connect({ address });
    const worker = await Worker.create({ connection, taskQueue: 'bench-rails', workflowsPath: WORKFLOWS_PATH, activities: createActivities(), maxConcurrentActivityTaskExecutions: 64 });
    const running = worker.run();
    try {
      const client = await getTemporalClient();
      const ids: string[] = [];
      const t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (next < PAYMENTS) {
          next++;
          const p = await createRailPayment({ userId, environment: 'sandbox', accountId: acct.id, amount: '1.00', currency: 'USD', rail: 'rtp', creditor: { name: 'Bench Payee', account_number: '123456', routing_number: '021000021' }, now: new Date() });
          await startRailPaymentWorkflow(p);
          await client.workflow.getHandle(p.workflowId).result();
          ids.push(p.id);
        }
      }));
      const s = (performance.now() - t0) / 1000;
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*)::text AS n FROM rail_payments WHERE status = 'completed'`);
      console.log(`RTP payments through the workflow path: ${ids.length} in ${s.toFixed(2)} s = ${(ids.length / s).toFixed(1)} payments/s (concurrency ${CONCURRENCY}); completed ${rows[0].n}`);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await benchRails();
  process.exit(0);
}
