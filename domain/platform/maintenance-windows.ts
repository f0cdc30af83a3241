/**
 * Planned maintenance windows (README "API conventions" → Maintenance windows). Operators schedule
 * one per environment (POST /api/v1/operators/maintenance); its workflow (maintenanceWindowWorkflow,
 * Temporal timers) writes system.maintenance_start at starts_at and system.maintenance_end at
 * ends_at (environment-wide events). While a window is on (starts_at <= now < ends_at, not
 * cancelled), the API answers writes with 503 MAINTENANCE and Retry-After (the one gate,
 * domain/auth/gate.ts, which reads activeMaintenance from a short in-process cache). Cancelling a window that has started
 * ends it at once (its end event is written then).
 */
import { getPool, withTransaction, type Queryable, onPoolClosed } from '../db/pool';
import { writeOutboxEvent } from '../events/outbox';
import { getTemporalClient } from '../temporal/client';
import { loadConfig } from './config';
import type { Environment } from './environment';
import { DomainError } from './errors';
import { newId } from './ids';

export const MAINTENANCE_WORKFLOW = 'maintenanceWindowWorkflow';
export const maintenanceWorkflowId = (id: string) => `maintenance-${id}`;

export interface MaintenanceWindow {
  id: string;
  environment: Environment;
  startsAt: Date;
  endsAt: Date;
  message: string;
  createdBy: string;
  createdAt: Date;
  cancelledAt: Date | null;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** How a window stands at `now`: cancelled, ended, in progress or scheduled. */
export function maintenanceStatus(w: Pick<MaintenanceWindow, 'cancelledAt' | 'startsAt' | 'endsAt'>, now = Date.now()): 'scheduled' | 'in_progress' | 'ended' | 'cancelled' {
  return w.cancelledAt ? 'cancelled' : w.endsAt.getTime() <= now ? 'ended' : w.startsAt.getTime() <= now ? 'in_progress' : 'scheduled';
}

interface Row {
  id: string;
  environment: Environment;
  starts_at: Date;
  ends_at: Date;
  message: string;
  created_by: string;
  created_at: Date;
  cancelled_at: Date | null;
  started_at: Date | null;
  ended_at: Date | null;
}

const toWindow = (r: Row): MaintenanceWindow => ({
  id: r.id,
  environment: r.environment,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  message: r.message,
  createdBy: r.created_by,
  createdAt: r.created_at,
  cancelledAt: r.cancelled_at,
  startedAt: r.started_at,
  endedAt: r.ended_at,
});

// ---- The write gate's cache: one lookup per environment and CACHE_MS.

const CACHE_MS = 2000;
const cache = new Map<Environment, { at: number; window: MaintenanceWindow | null }>();
onPoolClosed(() => cache.clear());

/** The window on now in the environment, or null; cached CACHE_MS per process. */
export async function activeMaintenance(environment: Environment, now = Date.now()): Promise<MaintenanceWindow | null> {
  const hit = cache.get(environment);
  if (hit && now - hit.at < CACHE_MS) return hit.window && hit.window.endsAt.getTime() > now ? hit.window : null;
  const { rows } = await getPool().query<Row>(
    `SELECT * FROM maintenance_windows
      WHERE environment = $1 AND cancelled_at IS NULL AND starts_at <= now() AND ends_at > now()
      ORDER BY ends_at DESC LIMIT 1`,
    [environment],
  );
  const window = rows[0] ? toWindow(rows[0]) : null;
  cache.set(environment, { at: now, window });
  return window;
}

export function forgetMaintenanceCache(): void {
  cache.clear();
}

// ---- Operators' schedule.

export async function scheduleMaintenance(input: { environment: Environment; startsAt: Date; endsAt: Date; message: string; createdBy: string }): Promise<MaintenanceWindow> {
  if (Number.isNaN(input.startsAt.getTime()) || Number.isNaN(input.endsAt.getTime())) throw new DomainError('VALIDATION_ERROR', 'starts_at and ends_at must be date-times', '/starts_at');
  if (input.endsAt <= input.startsAt) throw new DomainError('VALIDATION_ERROR', 'ends_at must be after starts_at', '/ends_at');
  if (input.endsAt.getTime() <= Date.now()) throw new DomainError('VALIDATION_ERROR', 'ends_at must be in the future', '/ends_at');
  const message = input.message.trim();
  if (message === '' || message.length > 500) throw new DomainError('VALIDATION_ERROR', 'message must be 1 to 500 characters', '/message');
  const { rows } = await getPool().query<Row>(
    `INSERT INTO maintenance_windows (id, environment, starts_at, ends_at, message, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [newId('mw'), input.environment, input.startsAt, input.endsAt, message, input.createdBy],
  );
  const w = toWindow(rows[0]);
  try {
    const client = await getTemporalClient();
    await client.workflow.start(MAINTENANCE_WORKFLOW, { taskQueue: loadConfig().taskQueue, workflowId: maintenanceWorkflowId(w.id), args: [{ maintenanceId: w.id }] });
  } catch {
    await getPool().query('DELETE FROM maintenance_windows WHERE id = $1', [w.id]);
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The workflow service is unavailable; the maintenance window was not scheduled');
  }
  forgetMaintenanceCache();
  return w;
}

/** Windows not ended yet (scheduled or on), soonest first. */
export async function listMaintenance(environment: Environment): Promise<MaintenanceWindow[]> {
  const { rows } = await getPool().query<Row>(
    `SELECT * FROM maintenance_windows WHERE environment = $1 AND cancelled_at IS NULL AND ends_at > now() ORDER BY starts_at, id`,
    [environment],
  );
  return rows.map(toWindow);
}

/** Cancels a window (ends it now when it is on); its workflow writes the end event if it had started. */
export async function cancelMaintenance(environment: Environment, id: string): Promise<MaintenanceWindow> {
  const { rows } = await getPool().query<Row>(
    `UPDATE maintenance_windows SET cancelled_at = coalesce(cancelled_at, now()) WHERE id = $1 AND environment = $2 RETURNING *`,
    [id, environment],
  );
  if (!rows[0]) throw new DomainError('NOT_FOUND', 'Maintenance window not found');
  forgetMaintenanceCache();
  try {
    const client = await getTemporalClient();
    await client.workflow.getHandle(maintenanceWorkflowId(id)).signal('cancel');
  } catch {
    // A finished workflow has nothing left to end; a running one re-reads the row at its next step.
  }
  return toWindow(rows[0]);
}

// ---- The workflow's steps (activities/system): idempotent, each writes its event with its mark.

export async function getMaintenance(id: string, c: Queryable = getPool()): Promise<MaintenanceWindow | null> {
  const { rows } = await c.query<Row>('SELECT * FROM maintenance_windows WHERE id = $1', [id]);
  return rows[0] ? toWindow(rows[0]) : null;
}

function eventData(w: MaintenanceWindow) {
  return { maintenance_id: w.id, environment: w.environment, starts_at: w.startsAt.toISOString(), ends_at: w.endsAt.toISOString(), message: w.message };
}

/** Marks the window started and writes system.maintenance_start, once; false when it was cancelled. */
export async function markMaintenanceStarted(id: string): Promise<boolean> {
  return withTransaction(async (c) => {
    const { rows } = await c.query<Row>(
      'UPDATE maintenance_windows SET started_at = now() WHERE id = $1 AND started_at IS NULL AND cancelled_at IS NULL RETURNING *',
      [id],
    );
    if (rows[0]) {
      const w = toWindow(rows[0]);
      await writeOutboxEvent(c, { type: 'system.maintenance_start', environment: w.environment, aggregateType: 'maintenance_window', aggregateId: w.id, data: eventData(w) });
      return true;
    }
    const w = await getMaintenance(id, c);
    return !!w && w.startedAt !== null && w.cancelledAt === null;
  });
}

/** Marks a started window ended and writes system.maintenance_end, once. */
export async function markMaintenanceEnded(id: string): Promise<void> {
  await withTransaction(async (c) => {
    const { rows } = await c.query<Row>('UPDATE maintenance_windows SET ended_at = now() WHERE id = $1 AND started_at IS NOT NULL AND ended_at IS NULL RETURNING *', [id]);
    if (!rows[0]) return;
    const w = toWindow(rows[0]);
    await writeOutboxEvent(c, { type: 'system.maintenance_end', environment: w.environment, aggregateType: 'maintenance_window', aggregateId: w.id, data: eventData(w) });
  });
}
