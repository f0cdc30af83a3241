#!/usr/bin/env node
// `npm test`: the type check and the whole vitest suite, side by side (tsc is one thread and the
// suite's first seconds are spent starting servers), then the time against the suite's budget, so
// a slow-down shows in every run's log. Arguments go to vitest (`npm test -- tests/ledger`).
// TEST_BUDGET_SECONDS overrides the budget (360 s: docs/testing.md, "Budget").
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const budget = Number(process.env.TEST_BUDGET_SECONDS ?? 360);
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);

function run(cmd, args, { buffer }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: buffer ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (buffer) {
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
    }
    const forward = (sig) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code: code ?? (signal ? 1 : 0), output, seconds: seconds() });
    });
  });
}

// The type check's output is held back until it ends, so it does not interleave with the tests'.
// TypeScript 7 (the native compiler, devDependency `typescript7`) checks the same tsconfig in ~5 s of
// CPU where 5.9 took ~25 s (60-100 s beside the suite on two cores); `typescript` 5.9 stays for
// hey-api, which uses its compiler API. Called by path: both packages ship a bin named tsc.
const typecheck = run(process.execPath, [path.join(root, 'node_modules', 'typescript7', 'bin', 'tsc'), '--noEmit', '-p', 'tsconfig.json'], { buffer: true }).then((r) => {
  console.log(r.code === 0 ? `[test] type check passed (${r.seconds} s)` : `[test] type check FAILED (${r.seconds} s):\n${r.output}`);
  return r;
});
// The whole suite (no arguments) must exercise every kind of outbound operation that the money
// invariants check (domain/ledger/outflows.ts): each test file's check appends what it saw here.
const wholeSuite = process.argv.length <= 2;
const tallyDir = wholeSuite ? mkdtempSync(path.join(tmpdir(), 'outflows-')) : null;
if (tallyDir) process.env.OUTFLOW_TALLY_FILE = path.join(tallyDir, 'tally.jsonl');
const tests = await run(bin('vitest'), ['run', ...process.argv.slice(2)], { buffer: false });
const tsc = await typecheck;
const outflows = tallyDir ? outflowTally(process.env.OUTFLOW_TALLY_FILE) : { ok: true };
if (tallyDir) rmSync(tallyDir, { recursive: true, force: true });

/** Records checked per outbound kind over the run; a kind with none means no test sends money out that way any more. */
function outflowTally(file) {
  const checked = {};
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // No file: no test file ran its money check (vitest failed before), reported by vitest itself.
  }
  for (const line of text.split('\n').filter(Boolean)) {
    for (const [kind, n] of Object.entries(JSON.parse(line))) checked[kind] = (checked[kind] ?? 0) + n;
  }
  const missing = Object.entries(checked).filter(([, n]) => n === 0).map(([k]) => k);
  const figures = Object.entries(checked).map(([k, n]) => `${k} ${n}`).join(', ');
  console.log(missing.length ? `[test] outbound money check FAILED: no test exercised ${missing.join(', ')} (checked: ${figures})` : `[test] outbound money check: ${figures || 'nothing checked'}`);
  return { ok: missing.length === 0 };
}

const wall = Number(seconds());
const within = wall <= budget;
console.log(
  `[test] ${tests.code === 0 && tsc.code === 0 && outflows.ok ? 'passed' : 'FAILED'} in ${wall} s ` +
    `(budget ${budget} s on two cores: ${within ? 'within' : `OVER by ${wall - budget} s`}; type check ${tsc.code === 0 ? 'ok' : 'failed'}, vitest ${tests.code === 0 ? 'ok' : 'failed'})`,
);
process.exit(tests.code !== 0 ? tests.code : tsc.code !== 0 ? tsc.code : outflows.ok ? 0 : 1);
