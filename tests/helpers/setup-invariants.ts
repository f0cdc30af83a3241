import { appendFileSync } from 'node:fs';
import { afterAll, afterEach, inject } from 'vitest';
import { checkMoneyInvariantsWithTallyAt } from '../../domain/ledger/invariants';

declare global {
  /** Set by a test file that leaves a broken ledger on purpose, to the reason why. */
  var __skipMoneyInvariants: string | undefined;
}

/**
 * Registered in vitest.config.ts (setupFiles): after every test file, the money invariants of
 * every database the file used (its DATABASE_URL, seen after each test and at the end) are checked
 * with a client of its own, since the file's own afterAll has usually closed the app's pool. Only
 * this run's test databases are checked (their names start with the run's prefix), never a
 * DATABASE_URL inherited from the environment.
 */
const inherited = process.env.DATABASE_URL;
const seen = new Set<string>();

function note() {
  const url = process.env.DATABASE_URL;
  if (!url || url === inherited) return;
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (name.startsWith(`${inject('databasePrefix')}_`)) seen.add(url);
}

afterEach(note);

afterAll(async () => {
  note();
  if (globalThis.__skipMoneyInvariants) return;
  const problems: string[] = [];
  const checked: Record<string, number> = {};
  for (const url of seen) {
    const report = await checkMoneyInvariantsWithTallyAt(url);
    for (const p of report.problems) problems.push(`${new URL(url).pathname.slice(1)}: ${p}`);
    for (const [kind, n] of Object.entries(report.checked)) checked[kind] = (checked[kind] ?? 0) + n;
  }
  // scripts/test.mjs adds these up over the run: every outbound kind must have been exercised.
  if (process.env.OUTFLOW_TALLY_FILE) appendFileSync(process.env.OUTFLOW_TALLY_FILE, `${JSON.stringify(checked)}\n`);
  if (problems.length > 0) {
    throw new Error(`money invariants broken after this test file (${problems.length}):\n- ${problems.slice(0, 20).join('\n- ')}`);
  }
});
