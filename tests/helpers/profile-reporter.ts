// `npm run test:profile`: a vitest reporter that times every test file by phase (set-up files,
// import of the file and what it loads, tests and hooks) and prints the slowest, so the suite's
// budget (docs/testing.md) is kept by measurement. The whole table goes to .data/test-profile.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

interface FileTimes {
  file: string;
  setupS: number;
  importS: number;
  testsS: number;
  totalS: number;
  tests: number;
}

const s = (ms: number) => Math.round(ms) / 1000;

export default class ProfileReporter implements Reporter {
  private rows: FileTimes[] = [];
  private root = process.cwd();
  private started = Date.now();

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const setup = d.environmentSetupDuration + d.prepareDuration + d.setupDuration;
    this.rows.push({
      file: path.relative(this.root, module.moduleId),
      setupS: s(setup),
      importS: s(d.collectDuration),
      testsS: s(d.duration),
      totalS: s(setup + d.collectDuration + d.duration),
      tests: [...module.children.allTests()].length,
    });
  }

  onTestRunEnd(): void {
    const rows = this.rows.sort((a, b) => b.totalS - a.totalS);
    const sum = (k: 'setupS' | 'importS' | 'testsS' | 'totalS') => rows.reduce((t, r) => t + r[k], 0);
    const out = path.join(this.root, '.data', 'test-profile.json');
    mkdirSync(path.dirname(out), { recursive: true });
    const wallS = s(Date.now() - this.started);
    writeFileSync(out, JSON.stringify({ wallS, files: rows.length, summed: { setupS: sum('setupS'), importS: sum('importS'), testsS: sum('testsS') }, rows }, null, 2));
    const pad = (v: string | number, n: number) => String(v).padStart(n);
    const lines = [
      '',
      `test profile: ${rows.length} files, ${wallS.toFixed(0)} s wall; summed over files: set-up ${sum('setupS').toFixed(0)} s, import ${sum('importS').toFixed(0)} s, tests ${sum('testsS').toFixed(0)} s`,
      `${'total'.padStart(7)} ${'set-up'.padStart(7)} ${'import'.padStart(7)} ${'tests'.padStart(7)}  file (slowest 20; all in .data/test-profile.json)`,
      ...rows.slice(0, 20).map((r) => `${pad(r.totalS.toFixed(1), 7)} ${pad(r.setupS.toFixed(1), 7)} ${pad(r.importS.toFixed(1), 7)} ${pad(r.testsS.toFixed(1), 7)}  ${r.file} (${r.tests})`),
    ];
    console.log(lines.join('\n'));
  }
}
