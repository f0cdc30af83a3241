/**
 * system.status_change (resource readiness): a process that observes readiness (the worker, every
 * READINESS_WATCH_MS) compares each component's status (database, Temporal: domain/platform/
 * readiness.ts, the checks of GET /api/ready) with the last one recorded in readiness_status and
 * writes an environment-wide event per environment when it changed, in the same transaction as
 * the new status; the row lock makes it once per change whichever process sees it first. A
 * database outage cannot be written while it lasts: the process remembers it and writes the
 * 'unavailable' change (then the recovery) once the database answers again.
 */
import { withTransaction } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { ENVIRONMENTS } from './environment';
import { checkReadiness } from './readiness';

type Status = 'ok' | 'unavailable';
const missed: Array<{ component: string; status: Status; at: Date }> = [];

async function record(component: string, status: Status, at: Date): Promise<boolean> {
  return withTransaction(async (c) => {
    await c.query(`INSERT INTO readiness_status (component, status, changed_at) VALUES ($1, 'ok', now()) ON CONFLICT DO NOTHING`, [component]);
    const { rows } = await c.query<{ status: Status }>('SELECT status FROM readiness_status WHERE component = $1 FOR UPDATE', [component]);
    const previous = rows[0].status;
    if (previous === status) return false;
    await c.query('UPDATE readiness_status SET status = $2, changed_at = $3 WHERE component = $1', [component, status, at]);
    for (const environment of ENVIRONMENTS) {
      await writeOutboxEvent(c, {
        type: 'system.status_change',
        environment,
        aggregateType: 'readiness',
        aggregateId: component,
        data: { resource: 'readiness', component, previous_status: previous, status, observed_at: at.toISOString() },
      });
    }
    return true;
  });
}

/** One check: writes the changes observed (and those missed while the database was down); returns the components that changed. */
export async function checkReadinessAndAnnounce(): Promise<string[]> {
  const checks = await checkReadiness();
  const at = new Date();
  const db = checks.find((c) => c.name === 'database')!;
  if (!db.ok) {
    if (missed.at(-1)?.status !== 'unavailable') missed.push({ component: 'database', status: 'unavailable', at });
    return [];
  }
  const changed: string[] = [];
  const pending = [...missed.splice(0), ...checks.map((c) => ({ component: c.name, status: (c.ok ? 'ok' : 'unavailable') as Status, at }))];
  for (const p of pending) if (await record(p.component, p.status, p.at)) changed.push(p.component);
  return changed;
}

/** Runs the check every intervalMs until stopped (worker/main.ts). */
export function startReadinessWatch(intervalMs = Number(process.env.READINESS_WATCH_MS ?? 30_000)): () => void {
  const timer = setInterval(() => {
    checkReadinessAndAnnounce().catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
