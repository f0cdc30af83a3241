// Replays workflow histories (JSON as written by `temporal workflow show --output json`, the UI's
// download, or RECORD_HISTORIES=1 test runs) against the current workflow code: exits non-zero on
// any non-determinism (or against WORKFLOW_BUNDLE_PATH's bundle when set). A directory argument
// stands for every .json file in it.
// Usage: npm run replay -- <history.json|dir> [...]; npm run replay:all (tests/replay/histories)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { loadConfig } from '../domain/platform/config';
import { WORKFLOWS_PATH } from '../worker';

Runtime.install({ logger: new DefaultLogger('WARN') });
const files = process.argv
  .slice(2)
  .flatMap((arg) => (statSync(arg).isDirectory() ? readdirSync(arg).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(arg, f)) : [arg]));
if (files.length === 0) {
  console.error('usage: replay-history <history.json|dir> [...]');
  process.exit(2);
}
// Bundled once: one replay worker goes through every history in turn. With WORKFLOW_BUNDLE_PATH
// (npm run worker:bundle), the bundle the workers run is what the histories are replayed against.
const bundlePath = loadConfig().workflowBundlePath;
const code = bundlePath
  ? readFileSync(bundlePath, 'utf8')
  : (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') })).code;
const histories = files.map((file) => {
  const history = JSON.parse(readFileSync(file, 'utf8')) as { workflowId?: string };
  // Fixtures recorded by the tests carry their workflow id; histories do not otherwise.
  return { history, workflowId: history.workflowId ?? path.basename(file) };
});
let failed = 0;
let i = 0;
for await (const result of Worker.runReplayHistories({ workflowBundle: { code }, replayName: 'replay-history' }, histories)) {
  const file = files[i++];
  if (result.error) {
    failed++;
    console.log(`FAIL ${file}: ${result.error.name}: ${result.error.message}`);
  } else console.log(`ok   ${file}`);
}
process.exit(failed ? 1 : 0);
