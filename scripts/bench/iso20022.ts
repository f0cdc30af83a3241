/**
 * ISO 20022 throughput: parse and validate rates for a 1,000-transaction
 * pain.001 and a 1,000-entry camt.053 built by our own generator, the time of
 * parse + validate on the statement (target: under 1 s), and memory use.
 */
import { pathToFileURL } from 'node:url';
import { generateMessage, parseMessage, validateMessage } from '../../iso20022/index';
import { bigCamt053, bigPain001 } from '../../tests/iso20022/fixtures/samples';

const MB = 1024 * 1024;

/** Runs `fn` for at least `minMs` (and at least `minRuns` times); returns runs per second. */
function rate(fn: () => unknown, minMs = 1500, minRuns = 3): { perSecond: number; runs: number } {
  fn(); // warm-up: schema load, JIT
  let runs = 0;
  const started = performance.now();
  while (runs < minRuns || performance.now() - started < minMs) {
    fn();
    runs++;
  }
  return { perSecond: (runs * 1000) / (performance.now() - started), runs };
}

export async function benchIso20022(): Promise<void> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;

  const pain = generateMessage(bigPain001(1000)).xml;
  const camt = generateMessage(bigCamt053(1000)).xml;
  console.log(`iso20022: pain.001 with 1,000 transactions = ${(pain.length / MB).toFixed(2)} MB, camt.053 with 1,000 entries = ${(camt.length / MB).toFixed(2)} MB`);

  for (const [name, xml] of [['pain.001 (1,000 tx)', pain], ['camt.053 (1,000 entries)', camt]] as const) {
    const p = rate(() => parseMessage(xml));
    const v = rate(() => validateMessage(xml));
    console.log(`iso20022: ${name}: parse ${p.perSecond.toFixed(1)} msg/s, validate ${v.perSecond.toFixed(1)} msg/s`);
  }

  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    parseMessage(camt);
    const result = validateMessage(camt);
    times.push(performance.now() - started);
    if (!result.valid) throw new Error(`benchmark statement is invalid: ${JSON.stringify(result.errors.slice(0, 3))}`);
  }
  const best = Math.min(...times);
  const median = [...times].sort((a, b) => a - b)[2];
  console.log(
    `iso20022: parse + validate camt.053 (1,000 entries): median ${median.toFixed(0)} ms, best ${best.toFixed(0)} ms ` +
      `(target < 1000 ms: ${median < 1000 ? 'met' : 'NOT met'})`,
  );

  const mem = process.memoryUsage();
  console.log(
    `iso20022: memory: RSS ${(mem.rss / MB).toFixed(0)} MB (delta ${((mem.rss - rssBefore) / MB).toFixed(0)} MB), ` +
      `heap used ${(mem.heapUsed / MB).toFixed(0)} MB (delta ${((mem.heapUsed - heapBefore) / MB).toFixed(0)} MB)`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchIso20022().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
