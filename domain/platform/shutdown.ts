// Bounded shutdown for the platform's processes: each step runs in order while the budget lasts
// (SHUTDOWN_TIMEOUT_MS); what has not finished by then is named and abandoned, and whatever
// child process is still alive is killed, so a Ctrl-C always ends the process.
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

export interface ShutdownStep {
  name: string;
  run(): Promise<unknown>;
}

export interface ShutdownResult {
  /** Steps that did not finish within the budget (the one running, and those not started). */
  cutShort: string[];
  /** Steps that failed (name: message); they did not hold up the rest. */
  failed: string[];
}

export async function runShutdown(steps: ShutdownStep[], budgetMs: number): Promise<ShutdownResult> {
  const failed: string[] = [];
  let index = 0;
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), budgetMs);
    timer.unref();
  });
  const all = (async () => {
    for (; index < steps.length; index++) {
      try {
        await steps[index].run();
      } catch (err) {
        failed.push(`${steps[index].name}: ${(err as Error)?.message ?? String(err)}`);
      }
    }
    return 'done' as const;
  })();
  const outcome = await Promise.race([all, budget]);
  clearTimeout(timer);
  return { cutShort: outcome === 'timeout' ? steps.slice(index).map((s) => s.name) : [], failed };
}

/** The pids of this process's live child processes (Linux /proc; elsewhere pgrep). */
export function childPids(parent: number = process.pid): number[] {
  try {
    const out: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // Fields after the command (which may hold spaces and parentheses): state, ppid, …
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        if (Number(rest[1]) === parent && rest[0] !== 'Z') out.push(Number(entry));
      } catch {
        // The process ended while being read.
      }
    }
    return out;
  } catch {
    const r = spawnSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' });
    return (r.stdout ?? '').split('\n').filter(Boolean).map(Number);
  }
}

/**
 * Kills every live child process (and its process group, for servers started detached); returns
 * how many were found. The last step of a shutdown whose budget ran out: nothing is left behind.
 */
export function killChildProcesses(signal: NodeJS.Signals = 'SIGKILL'): number {
  const pids = childPids();
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, signal);
      } catch {
        // Not a group leader, or already gone.
      }
    }
  }
  return pids.length;
}
