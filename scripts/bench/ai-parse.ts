// The deterministic natural-language parser (issue 20, target p99 <= 5 ms per parse): the golden
// queries, injection attempts and more of what people type (tests/ai/queries.ts, about 150),
// parsed in turn 20,000 times in this process, each parse timed on its own. No database.
import { parseTransactionQuery } from '../../domain/ai/parser';
import { BENCH_QUERIES, HOSTILE_LONG_INPUTS, REFERENCE_NOW } from '../../tests/ai/queries';
import { percentile, report } from './common';

const PARSES = Number.parseInt(process.env.BENCH_AI_PARSES ?? '20000', 10);
const ZONES = ['Europe/Berlin', 'America/New_York', 'UTC'];

export async function benchAiParse(): Promise<void> {
  // One untimed pass: chrono's patterns are compiled on first use (V8 tiers regular expressions up).
  for (const q of BENCH_QUERIES) parseTransactionQuery(q, { now: REFERENCE_NOW, timeZone: ZONES[0] });
  const latenciesMs: number[] = [];
  const start = performance.now();
  for (let i = 0; i < PARSES; i++) {
    const q = BENCH_QUERIES[i % BENCH_QUERIES.length];
    const timeZone = ZONES[Math.floor(i / BENCH_QUERIES.length) % ZONES.length];
    const t0 = performance.now();
    parseTransactionQuery(q, { now: REFERENCE_NOW, timeZone });
    latenciesMs.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  report(`ai parse (${BENCH_QUERIES.length} queries)`, { ops: latenciesMs.length, seconds, latenciesMs });
  const p99 = percentile([...latenciesMs].sort((a, b) => a - b), 99);
  console.log(`  target p99 <= 5 ms per parse: ${p99 <= 5 ? 'met' : 'NOT met'}`);
  // 10,000-character hostile inputs (tests/ai/queries.ts): each under 50 ms, the slowest of 20 runs.
  let worst = 0;
  for (let round = 0; round < 20; round++) {
    for (const q of HOSTILE_LONG_INPUTS) {
      const t0 = performance.now();
      parseTransactionQuery(q, { now: REFERENCE_NOW, timeZone: 'UTC' });
      if (round > 0) worst = Math.max(worst, performance.now() - t0);
    }
  }
  console.log(`ai parse, 10,000-character hostile inputs  max ${worst.toFixed(2)} ms   target < 50 ms: ${worst < 50 ? 'met' : 'NOT met'}`);
}
