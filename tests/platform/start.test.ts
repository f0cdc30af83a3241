/**
 * `npm start` as a new user runs it (scripts/start.ts on the embedded defaults, in a data directory
 * of its own, free ports): it comes up, answers the sequence that once froze it (register, account,
 * 10,000 USD deposit, three ACH payments, the three read at once) on a pool of one connection, and a
 * SIGINT stops it with exit code 0 and no child process left (embedded PostgreSQL, nats-server,
 * Temporal dev server). The bounded shutdown's parts are tested on their own below.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../domain/platform/config';
import { freePort } from '../../domain/platform/ports';
import { childPids, killChildProcesses, runShutdown } from '../../domain/platform/shutdown';

/** Whether pid runs (a zombie, exited and waiting for whoever adopted it to reap it, does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function describeProcess(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 200)}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** Every descendant of pid, read from /proc. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const c of childPids(pid)) out.push(c, ...descendants(c));
  return out;
}

describe('npm start (embedded defaults)', () => {
  let child: ChildProcess | undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'start-test-'));

  afterAll(() => {
    if (child?.pid && alive(child.pid)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('comes up, answers the frozen sequence on a pool of one, and stops on SIGINT leaving nothing behind', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'DATABASE_URL' || k === 'NATS_URL' || k.startsWith('TEMPORAL_') || k.startsWith('EVENTS_')) delete env[k];
    Object.assign(env, {
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_DB_PORT: String(await freePort()),
      NATS_PORT: String(await freePort()),
      NATS_MONITOR_PORT: String(await freePort()),
      TEMPORAL_PORT: String(await freePort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      DB_POOL_MAX: '1',
      LOG_LEVEL: 'warn',
    });
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
    const deadline = Date.now() + 150_000;
    while (!output.includes('Platform is up')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(output).toMatch(/embedded PostgreSQL 17\.\d+ on 127\.0\.0\.1:\d+ \(new cluster\)/);

    const base = `http://127.0.0.1:${port}`;
    const call = async (method: string, url: string, body?: unknown, token?: string) => {
      const r = await fetch(`${base}${url}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      return { status: r.status, json: (await r.json()) as any };
    };
    const password = 'a-long-password-for-start';
    expect((await call('POST', '/api/auth/register', { name: 'Ada', email: 'ada@example.test', password, password_confirmation: password })).status).toBe(201);
    const token = (await call('POST', '/api/auth/login', { email: 'ada@example.test', password })).json.access_token as string;
    const acct = (await call('POST', '/api/v2/accounts', { name: 'main' }, token)).json.data.uuid as string;
    expect((await call('POST', `/api/v2/accounts/${acct}/deposit`, { amount: '10000.00', asset_code: 'USD' }, token)).status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', '/api/v1/payment-rails/payments', { account_id: acct, amount: '25.00', currency: 'USD', rail: 'ach_standard', creditor_account: { name: 'Bob Payee', account_number: '123456789', routing_number: '021000021' } }, token);
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      ids.push(r.json.data.id);
    }
    const reads = await Promise.all(ids.map((id) => call('GET', `/api/v1/payment-rails/payments/${id}`, undefined, token)));
    expect(reads.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await call('GET', '/api/ready')).status).toBe(200);

    const children = descendants(child.pid!);
    expect(children.length).toBeGreaterThanOrEqual(3);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('Stopped.');
    // The servers' own children (PostgreSQL's backends, say) end after their parent has: a bounded wait for that.
    const exitDeadline = Date.now() + 10_000;
    while (children.some(alive) && Date.now() < exitDeadline) await new Promise((r) => setTimeout(r, 100));
    expect(children.filter(alive).map(describeProcess)).toEqual([]);
  }, 240_000);
});

describe('bounded shutdown', () => {
  it('runs every step in order when they finish within the budget, and reports a failing one without stopping', async () => {
    const ran: string[] = [];
    const r = await runShutdown(
      [
        { name: 'a', run: async () => ran.push('a') },
        { name: 'b', run: async () => Promise.reject(new Error('broken')) },
        { name: 'c', run: async () => ran.push('c') },
      ],
      5_000,
    );
    expect(ran).toEqual(['a', 'c']);
    expect(r).toEqual({ cutShort: [], failed: ['b: broken'] });
  });

  it('names the step that hangs and those after it once the budget is spent', async () => {
    const r = await runShutdown(
      [
        { name: 'quick', run: async () => undefined },
        { name: 'hangs', run: () => new Promise(() => undefined) },
        { name: 'never reached', run: async () => undefined },
      ],
      200,
    );
    expect(r.cutShort).toEqual(['hangs', 'never reached']);
  });

  it('kills every live child process', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const gone = new Promise((r) => sleeper.once('exit', r));
    await new Promise((r) => sleeper.once('spawn', r));
    expect(childPids()).toContain(sleeper.pid);
    expect(killChildProcesses()).toBeGreaterThanOrEqual(1);
    await gone;
    expect(childPids()).not.toContain(sleeper.pid);
  });
});
