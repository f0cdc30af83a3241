// Replays workflow histories (JSON as written by `temporal workflow show --output json` or the
// UI's download) against the current workflow code: exits non-zero on any non-determinism.
// Usage: npm run replay -- <history.json> [...]
import { readFileSync } from 'node:fs';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH } from '../worker';

Runtime.install({ logger: new DefaultLogger('WARN') });
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: replay-history <history.json> [...]');
  process.exit(2);
}
let failed = 0;
for (const file of files) {
  try {
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH, replayName: file }, JSON.parse(readFileSync(file, 'utf8')));
    console.log(`ok   ${file}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${file}: ${(err as Error).message}`);
  }
}
process.exit(failed ? 1 : 0);
