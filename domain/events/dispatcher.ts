import type { Client } from '@temporalio/client';
import { getPool, withTransaction } from '../db/pool';
import { newId } from '../platform/ids';
import { EVENT_CATALOG } from './catalog';
import { notifyStatements } from './live-feed';
import { startDeliveryWorkflows, type StartTarget } from '../webhooks/workflow';
import { projectNotifications } from '../mobile/notifications';
import { sendPushes } from '../mobile/push';

export const DISPATCHER_NAME = 'outbox-dispatcher';

export interface DispatchOptions {
  batchSize?: number;
  /** Temporal client and task queue for the delivery workflows (defaults: the platform's). */
  client?: Client;
  taskQueue?: string;
  /** See startDeliveryWorkflows. */
  searchAttributes?: boolean;
}

export interface DispatchResult {
  events: number;
  deliveries: number;
  /** Deliveries whose workflow start had failed earlier and was retried now. */
  restarted: number;
}

interface EventRow {
  id: string;
  type: string;
  environment: string;
  user_id: string | null;
  data: Record<string, unknown>;
  occurred_at: Date;
}

interface Match {
  webhook_id: string;
  user_id: string;
  environment: string;
  events: string[];
}

/** Event types delivered to every subscribed webhook of their environment (EventTypeInfo.environmentWide). */
const ENVIRONMENT_WIDE: ReadonlySet<string> = new Set(EVENT_CATALOG.filter((e) => e.environmentWide).map((e) => e.type));

/** The exact body every attempt of a delivery sends (and signs). */
export function deliveryBody(e: EventRow): string {
  return JSON.stringify({ id: e.id, event_type: e.type, created_at: e.occurred_at.toISOString(), data: e.data });
}

/**
 * One batch of the transactional outbox: takes the oldest unpublished events (FOR UPDATE SKIP
 * LOCKED, so several dispatchers can run side by side), creates a delivery for every active
 * webhook of the event's user and environment that subscribes to its type (or '*'), or of anyone
 * in the environment for an environment-wide event (a governance proposal), and marks the
 * events published — all in one transaction. Then starts one delivery workflow per delivery.
 * A crash between the commit and the starts is repaired by the sweep at the start of the next
 * call (deliveries older than 30 s without workflow_started_at).
 */
export async function dispatchOnce(opts: DispatchOptions = {}): Promise<DispatchResult> {
  const batchSize = opts.batchSize ?? 200;
  const sweep = await getPool().query<{ id: string; user_id: string; environment: string }>(
    `SELECT d.id, w.user_id, w.environment FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.status = 'pending' AND d.workflow_started_at IS NULL AND d.created_at < now() - interval '30 seconds'
     ORDER BY d.created_at LIMIT $1`,
    [batchSize],
  );
  const stale: StartTarget[] = sweep.rows.map((r) => ({ deliveryId: r.id, userId: r.user_id, environment: r.environment }));

  const { events, targets, notifications } = await withTransaction(async (c) => {
    const { rows: events } = await c.query<EventRow>(
      `SELECT id, type, environment, user_id, data, occurred_at FROM outbox_events
       WHERE published_at IS NULL ORDER BY occurred_at, id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [batchSize],
    );
    if (events.length === 0) return { events, targets: [] as StartTarget[], notifications: [] as string[] };
    const users = [...new Set(events.map((e) => e.user_id).filter((u): u is string => u !== null))];
    const wideEnvs = [...new Set(events.filter((e) => !e.user_id && ENVIRONMENT_WIDE.has(e.type)).map((e) => e.environment))];
    const { rows: hooks } = users.length || wideEnvs.length
      ? await c.query<Match>(
          `SELECT id AS webhook_id, user_id, environment, events FROM webhooks
            WHERE active AND (user_id = ANY($1::text[]) OR environment = ANY($2::text[]))`,
          [users, wideEnvs],
        )
      : { rows: [] as Match[] };
    const ids: string[] = [];
    const webhookIds: string[] = [];
    const eventIds: string[] = [];
    const types: string[] = [];
    const payloads: string[] = [];
    const occurred: Date[] = [];
    const targets: StartTarget[] = [];
    for (const e of events) {
      const wide = !e.user_id && ENVIRONMENT_WIDE.has(e.type);
      if (!e.user_id && !wide) continue;
      const body = deliveryBody(e);
      for (const h of hooks) {
        if ((!wide && h.user_id !== e.user_id) || h.environment !== e.environment) continue;
        if (!(h.events.includes('*') || h.events.includes(e.type))) continue;
        const id = newId('whdel');
        ids.push(id);
        webhookIds.push(h.webhook_id);
        eventIds.push(e.id);
        types.push(e.type);
        payloads.push(body);
        occurred.push(e.occurred_at);
        targets.push({ deliveryId: id, userId: h.user_id, environment: h.environment });
      }
    }
    let created = targets;
    if (ids.length > 0) {
      // ON CONFLICT: an event published twice (a dispatcher that died after the insert) gets one delivery per endpoint.
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, payload, workflow_id, event_occurred_at)
         SELECT u.id, u.webhook_id, u.event_id, u.event_type, u.payload, 'webhook-delivery-' || u.id, u.occurred_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
              AS u(id, webhook_id, event_id, event_type, payload, occurred_at)
         ON CONFLICT (webhook_id, event_id) WHERE replay_of IS NULL DO NOTHING
         RETURNING id`,
        [ids, webhookIds, eventIds, types, payloads, occurred],
      );
      const inserted = new Set(rows.map((r) => r.id));
      created = targets.filter((t) => inserted.has(t.deliveryId));
    }
    // The customers' notifications of these events (domain/mobile/notifications.ts), once each.
    const notifications = await projectNotifications(c, events);
    await c.query(`UPDATE outbox_events SET published_at = clock_timestamp(), attempts = attempts + 1 WHERE id = ANY($1::text[])`, [
      events.map((e) => e.id),
    ]);
    // The live feed (GraphQL subscriptions, ./live-feed.ts): delivered when this batch commits.
    for (const n of notifyStatements(events.map((e) => e.id))) await c.query(n.text, n.values);
    return { events, targets: created, notifications };
  });
  // Pushes are best effort: a failure leaves the notification in the feed, and is not retried.
  await sendPushes(notifications ?? []).catch(() => 0);

  await startDeliveryWorkflows([...stale, ...targets], { client: opts.client, taskQueue: opts.taskQueue, searchAttributes: opts.searchAttributes });
  return { events: events.length, deliveries: targets.length, restarted: stale.length };
}

/** Records a run of the dispatcher for the dashboard (heartbeat, counters, last error). */
async function recordRun(result: DispatchResult | undefined, error: unknown, intervalMs: number): Promise<void> {
  await getPool().query(
    `INSERT INTO event_consumers (name, last_run_at, last_success_at, last_error, last_error_at, runs, errors, events_processed, deliveries_created, interval_ms, updated_at)
     VALUES ($1, now(), CASE WHEN $2 THEN now() END, $3, CASE WHEN $2 THEN NULL ELSE now() END, 1, CASE WHEN $2 THEN 0 ELSE 1 END, $4, $5, $6, now())
     ON CONFLICT (name) DO UPDATE SET
       last_run_at = now(),
       last_success_at = CASE WHEN $2 THEN now() ELSE event_consumers.last_success_at END,
       last_error = CASE WHEN $2 THEN event_consumers.last_error ELSE $3 END,
       last_error_at = CASE WHEN $2 THEN event_consumers.last_error_at ELSE now() END,
       runs = event_consumers.runs + 1,
       errors = event_consumers.errors + CASE WHEN $2 THEN 0 ELSE 1 END,
       events_processed = event_consumers.events_processed + $4,
       deliveries_created = event_consumers.deliveries_created + $5,
       interval_ms = $6,
       updated_at = now()`,
    [DISPATCHER_NAME, error === undefined, error === undefined ? null : String((error as Error)?.message ?? error).slice(0, 500), result?.events ?? 0, result?.deliveries ?? 0, intervalMs],
  );
}

/** dispatchOnce plus the heartbeat the dashboard reads. */
export async function dispatchAndRecord(opts: DispatchOptions = {}, intervalMs = 0): Promise<DispatchResult> {
  try {
    const r = await dispatchOnce(opts);
    await recordRun(r, undefined, intervalMs);
    return r;
  } catch (err) {
    await recordRun(undefined, err, intervalMs).catch(() => undefined);
    throw err;
  }
}

export interface EventDispatcher {
  stop(): Promise<void>;
}

/**
 * The dispatcher loop for the worker process: a batch, then immediately another while batches
 * come back full, else a pause of `intervalMs`. Errors (database or Temporal down) are recorded
 * and retried after the pause. stop() waits for the batch in progress.
 */
export function startEventDispatcher(opts: DispatchOptions & { intervalMs?: number } = {}): EventDispatcher {
  // 100 ms: the live feed's latency (GraphQL subscriptions) is at most about one interval.
  const intervalMs = opts.intervalMs ?? Number.parseInt(process.env.EVENT_DISPATCH_INTERVAL_MS ?? '100', 10);
  const batchSize = opts.batchSize ?? 200;
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      let full = false;
      try {
        const r = await dispatchAndRecord({ ...opts, batchSize }, intervalMs);
        full = r.events >= batchSize;
      } catch {
        // recorded in event_consumers; the next round retries
      }
      if (!full && !stopped) {
        await new Promise<void>((res) => {
          const t = setTimeout(res, intervalMs);
          wake = () => {
            clearTimeout(t);
            res();
          };
        });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
