// GET /api/v2/gcu/composition as a client sees it: the API runs as its own process (npm run api)
// on a throw-away database with eight days of hourly recorded valuations (so performance and
// 24h/7d changes are real); this process is only the load generator, over loopback with
// keep-alive. Prints requests per second with p50/p99, anonymous (production) and with a sandbox
// key, against the target of 2,000/s with p99 ≤ 20 ms. Run: npx tsx scripts/bench/gcu.ts
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { createApiKey } from '../../domain/auth/api-keys';
import { registerUser } from '../../domain/auth/users';
import { recordValuations } from '../../domain/baskets/valuations';
import { closePrisma } from '../../domain/db/prisma';
import { REPO_ROOT } from '../../domain/platform/config';
import { drive, freePort, percentile, report, waitForHealth, withBenchDatabase } from './common';

const CONCURRENCY = Number.parseInt(process.env.BENCH_CONCURRENCY ?? '16', 10);
const SECONDS = Number.parseInt(process.env.BENCH_SECONDS ?? '10', 10);
const HISTORY_HOURS = 8 * 24;
const HOUR = 3_600_000;

export async function benchGcu(): Promise<void> {
  await withBenchDatabase(async (url) => {
    let api: ChildProcess | undefined;
    try {
      const now = Date.now();
      for (let h = HISTORY_HOURS; h >= 1; h--) await recordValuations(new Date(now - h * HOUR));
      const port = await freePort();
      api = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          DATABASE_URL: url,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          RATE_LIMIT_PER_MINUTE: '1000000000',
          RATE_LIMIT_PER_HOUR: '1000000000',
          JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const base = `http://127.0.0.1:${port}`;
      await waitForHealth(base);
      const user = await registerUser('Bench', `bench-gcu-${port}@bench.test`, 'bench-password-123');
      const { value } = await createApiKey({ userId: user!.id, name: 'bench', environment: 'sandbox', permissions: ['read'] });

      // node:http with keep-alive: fetch costs the load generator about twice the CPU per request.
      const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
      const getter = (headers: Record<string, string>) => () =>
        new Promise<void>((resolve, reject) => {
          const req = http.request(`${base}/api/v2/gcu/composition`, { method: 'GET', agent, headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              if (res.statusCode !== 200) reject(new Error(`composition: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8')}`));
              else resolve();
            });
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end();
        });
      const anonymous = getter({});
      const sandbox = getter({ authorization: `Bearer ${value}` });

      // What is measured is the real view: six components, and changes from the recorded history.
      const sample = (await (await fetch(`${base}/api/v2/gcu/composition`)).json()) as { data: { value_usd: string; composition: unknown[]; performance: Record<string, number | null> } };
      if (sample.data.composition.length !== 6 || sample.data.performance['7d_change_percent'] === null) throw new Error(`unexpected composition: ${JSON.stringify(sample).slice(0, 300)}`);
      console.log(
        `gcu bench: API as a separate process, ${HISTORY_HOURS} hourly valuations recorded (GCU ${sample.data.value_usd} USD, 7d ${sample.data.performance['7d_change_percent']} %), ` +
          `response ${JSON.stringify(sample).length} bytes, concurrency ${CONCURRENCY}, ${SECONDS} s each`,
      );
      for (const [label, op] of [
        ['GET /api/v2/gcu/composition (anonymous)', anonymous],
        ['GET /api/v2/gcu/composition (sandbox key)', sandbox],
      ] as const) {
        await drive(CONCURRENCY, 2, op); // warm-up (JIT, pool, caches)
        const run = await drive(CONCURRENCY, SECONDS, op);
        const rate = report(label, run);
        const p99 = percentile([...run.latenciesMs].sort((a, b) => a - b), 99);
        console.log(`  target 2,000/s with p99 ≤ 20 ms: ${rate >= 2000 && p99 <= 20 ? 'met' : 'NOT met'}`);
      }
      agent.destroy();
      await closePrisma();
    } finally {
      // Stopped before its database is dropped.
      if (api && api.exitCode === null) {
        const exited = new Promise((r) => api!.once('exit', r));
        api.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (api.exitCode === null) api.kill('SIGKILL');
      }
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchGcu()
    .then(() => process.exit(0))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
