// `npm run worker:bundle [-- out.js]`: the workflow code bundled once, ahead of the workers
// (default .data/workflow-bundle.js). Start workers with WORKFLOW_BUNDLE_PATH=<that file> and they
// skip bundling workflows/ at start-up (seconds of CPU each), all running the same code.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../domain/platform/config';
import { bundleWorkflows } from '../worker';

const out = path.resolve(process.argv[2] ?? path.join(REPO_ROOT, '.data', 'workflow-bundle.js'));
const code = await bundleWorkflows();
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, code);
console.log(`workflow bundle: ${out} (${(code.length / 1024).toFixed(0)} KiB); start workers with WORKFLOW_BUNDLE_PATH=${out}`);
