// Sanctions screening throughput against the full OFAC SDN list (target ≥ 500 names/s): names
// screened one at a time in this process, half of them listed names (reordered, lower-cased),
// half ordinary names, and the time of each screening.
import { getPool } from '../../domain/db/pool';
import { ensureSanctionsList, screenNames } from '../../domain/regtech/sanctions';
import { percentile, withBenchDatabase } from './common';

const NAMES = Number.parseInt(process.env.BENCH_SANCTIONS_NAMES ?? '4000', 10);
const ORDINARY = ['John Smith', 'Maria Garcia', 'Acme Trading GmbH', 'Emma Johansson', 'Li Wei', 'Oliver Brown', 'Sophie Martin', 'Northwind Traders Ltd'];

export async function benchSanctions(): Promise<void> {
  await withBenchDatabase(async () => {
    const t0 = performance.now();
    const { status } = await ensureSanctionsList();
    const loadMs = performance.now() - t0;
    const { rows } = await getPool().query<{ name: string }>('SELECT name FROM sanctions_names ORDER BY random() LIMIT $1', [NAMES / 2]);
    const listed = rows.map((r) => r.name.split(/,\s*/).reverse().join(' ').toLowerCase());
    const names = listed.flatMap((n, i) => [n, `${ORDINARY[i % ORDINARY.length]} ${i}`]);
    await screenNames(['warm up the index']);
    const times: number[] = [];
    let hits = 0;
    const start = performance.now();
    for (const n of names) {
      const s = performance.now();
      const [r] = await screenNames([n]);
      times.push(performance.now() - s);
      if (r.hit) hits++;
    }
    const seconds = (performance.now() - start) / 1000;
    times.sort((a, b) => a - b);
    const rate = names.length / seconds;
    console.log(`OFAC SDN list: ${status.entryCount} entries, ${status.nameCount} names, loaded in ${loadMs.toFixed(0)} ms`);
    console.log(
      `screening ${names.length} names one at a time: ${rate.toFixed(0)} names/s, p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms; ` +
        `${hits} hits (${listed.length} listed names screened)`,
    );
    console.log(`  target 500 names/s against the full list: ${rate >= 500 ? 'met' : 'NOT met'}`);
  });
}
