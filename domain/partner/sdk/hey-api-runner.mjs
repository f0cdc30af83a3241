// Runs @hey-api/openapi-ts once, in a process of its own, so that domain/partner/sdk/generate.ts can
// bound it with a time-out and kill it: `node hey-api-runner.mjs <config.json>`. The configuration
// file is written by generate.ts (input, output folder, plugins); nothing else is read.
import { readFileSync } from 'node:fs';
import { createClient } from '@hey-api/openapi-ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node hey-api-runner.mjs <config.json>\n');
  process.exit(2);
}
await createClient(JSON.parse(readFileSync(file, 'utf8')));
