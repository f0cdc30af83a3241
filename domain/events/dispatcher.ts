import type { Client } from '@temporalio/client';
import type { PoolClient } from 'pg';
import { getPool } from '../db/pool';
import { newId } from '../platform/ids';
import { EVENT_CATALOG } from './catalog';
import { startDeliveryWorkflows, type StartTarget } from '../webhooks/workflow';
import { projectNotifications } from '../mobile/notifications';
import { sendPushes } from '../mobile/push';
import { consumeAll, startConsumer, type ConsumerSpec, type RunningConsumer, type StreamEvent } from './consumer';
import { relayAll, relayOnce } from './relay';
import { dashboardProjector } from './projector';
import { wakeablePause } from '../platform/pause';

/** The outbox relay's heartbeat row in event_consumers (it is not a stream consumer). */
export const DISPATCHER_NAME = 'outbox-relay';
/** The durable stream consumer that turns events into webhook deliveries and notifications. */
export const WEBHOOK_CONSUMER = 'webhook-dispatcher';

export interface DispatchOptions {
  batchSize?: number;
  /** Temporal client and task queue for the delivery workflows (defaults: the platform's). */
  client?: Client;
  taskQueue?: string;
  /** See startDeliveryWorkflows. */
  searchAttributes?: boolean;
}

export interface DispatchResult {
  /** Outbox events published to the stream. */
  events: number;
  deliveries: number;
  /** Deliveries whose workflow start had failed earlier and was retried now. */
  restarted: number;
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
export function deliveryBody(e: Pick<StreamEvent, 'id' | 'type' | 'occurred_at' | 'data'>): string {
  return JSON.stringify({ id: e.id, event_type: e.type, created_at: e.occurred_at.toISOString(), data: e.data });
}

interface Dispatched {
  targets: StartTarget[];
  notifications: string[];
}

/**
 * Creates a delivery for every active webhook of the event's user and environment that subscribes
 * to its type (or '*'), or of anyone in the environment for an environment-wide event (a
 * governance proposal), and the customers' notifications — in the consumer's transaction.
 */
async function dispatchEvents(c: PoolClient, events: StreamEvent[]): Promise<Dispatched> {
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
    // ON CONFLICT: one delivery per endpoint and event, whatever reaches this twice.
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
  // The customers' notifications of these events (domain/mobile/notifications.ts).
  const notifications = await projectNotifications(c, events);
  return { targets: created, notifications };
}

/** The webhook dispatcher as a stream consumer; its delivery workflows start after its commit. */
export function webhookDispatcher(opts: DispatchOptions = {}, counter?: { deliveries: number }): ConsumerSpec<Dispatched> {
  return {
    name: WEBHOOK_CONSUMER,
    description: 'Webhook deliveries and customer notifications (domain/events/dispatcher.ts)',
    // Each effect is unique per event already (a delivery per endpoint and event, a notification per
    // event and user; a second copy inserts nothing and so starts nothing): no receipt rows needed.
    receipts: false,
    handle: dispatchEvents,
    async afterCommit(r) {
      if (counter) counter.deliveries += r.targets.length;
      // Pushes are best effort: a failure leaves the notification in the feed, and is not retried.
      await sendPushes(r.notifications).catch(() => 0);
      // A start that fails here is repaired by the sweep (restartStaleDeliveries).
      await startDeliveryWorkflows(r.targets, { client: opts.client, taskQueue: opts.taskQueue, searchAttributes: opts.searchAttributes });
    },
  };
}

/**
 * Deliveries committed more than 30 s ago whose workflow never started (a dispatcher that died
 * between its commit and the starts): started now. Starting is idempotent by workflow id.
 */
export async function restartStaleDeliveries(opts: DispatchOptions = {}): Promise<number> {
  const sweep = await getPool().query<{ id: string; user_id: string; environment: string }>(
    `SELECT d.id, w.user_id, w.environment FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.status = 'pending' AND d.workflow_started_at IS NULL AND d.created_at < now() - interval '30 seconds'
     ORDER BY d.created_at LIMIT $1`,
    [opts.batchSize ?? 200],
  );
  const stale: StartTarget[] = sweep.rows.map((r) => ({ deliveryId: r.id, userId: r.user_id, environment: r.environment }));
  await startDeliveryWorkflows(stale, { client: opts.client, taskQueue: opts.taskQueue, searchAttributes: opts.searchAttributes });
  return stale.length;
}

/**
 * Everything waiting, at once: the outbox relayed to the stream, then the webhook dispatcher and
 * the dashboard projector consume what they have pending, then the stale-start sweep. The worker
 * runs these continuously (startEventDispatcher); tests and scripts call this to settle.
 */
export async function dispatchOnce(opts: DispatchOptions = {}): Promise<DispatchResult> {
  const restarted = await restartStaleDeliveries(opts);
  const events = await relayAll(opts.batchSize ?? 500);
  const counter = { deliveries: 0 };
  await consumeAll(webhookDispatcher(opts, counter));
  await consumeAll(dashboardProjector);
  return { events, deliveries: counter.deliveries, restarted };
}

/** Records a run of the relay for the dashboard (heartbeat, events published, last error). */
async function recordRun(events: number, error: unknown, intervalMs: number): Promise<void> {
  await getPool().query(
    `INSERT INTO event_consumers (name, last_run_at, last_success_at, last_error, last_error_at, runs, errors, events_processed, interval_ms, updated_at)
     VALUES ($1, now(), CASE WHEN $2 THEN now() END, $3, CASE WHEN $2 THEN NULL ELSE now() END, 1, CASE WHEN $2 THEN 0 ELSE 1 END, $4, $5, now())
     ON CONFLICT (name) DO UPDATE SET
       last_run_at = now(),
       last_success_at = CASE WHEN $2 THEN now() ELSE event_consumers.last_success_at END,
       last_error = CASE WHEN $2 THEN event_consumers.last_error ELSE $3 END,
       last_error_at = CASE WHEN $2 THEN event_consumers.last_error_at ELSE now() END,
       runs = event_consumers.runs + 1,
       errors = event_consumers.errors + CASE WHEN $2 THEN 0 ELSE 1 END,
       events_processed = event_consumers.events_processed + $4,
       interval_ms = $5,
       updated_at = now()`,
    [DISPATCHER_NAME, error === undefined, error === undefined ? null : String((error as Error)?.message ?? error).slice(0, 500), events, intervalMs],
  );
}

/** dispatchOnce plus the relay's heartbeat the dashboard reads. */
export async function dispatchAndRecord(opts: DispatchOptions = {}, intervalMs = 0): Promise<DispatchResult> {
  try {
    const r = await dispatchOnce(opts);
    await recordRun(r.events, undefined, intervalMs);
    return r;
  } catch (err) {
    await recordRun(0, err, intervalMs).catch(() => undefined);
    throw err;
  }
}

export interface EventDispatcher {
  stop(): Promise<void>;
}

/**
 * The event path of a worker process: the outbox relay loop (a batch, then at once another while
 * batches come back full, else a pause of `intervalMs`; errors are recorded and retried after the
 * pause), the webhook dispatcher and the dashboard projector as stream consumers, and the
 * stale-start sweep every 10 s. stop() waits for the batches in progress.
 */
export function startEventDispatcher(opts: DispatchOptions & { intervalMs?: number } = {}): EventDispatcher {
  // 50 ms: the commit-to-stream latency (webhooks, GraphQL subscriptions) is at most about one interval.
  const intervalMs = opts.intervalMs ?? Number.parseInt(process.env.EVENT_RELAY_INTERVAL_MS ?? '50', 10);
  const batchSize = opts.batchSize ?? 500;
  let stopped = false;
  const pause = wakeablePause();
  const relay = (async () => {
    while (!stopped) {
      let full = false;
      try {
        const r = await relayOnce({ batchSize });
        full = r.published >= batchSize;
        await recordRun(r.published, undefined, intervalMs);
      } catch (err) {
        await recordRun(0, err, intervalMs).catch(() => undefined);
      }
      if (!full && !stopped) await pause.sleep(intervalMs);
    }
  })();
  const consumers: RunningConsumer[] = [startConsumer(webhookDispatcher(opts)), startConsumer(dashboardProjector)];
  const sweep = setInterval(() => void restartStaleDeliveries(opts).catch(() => 0), 10_000);
  sweep.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(sweep);
      pause.wake();
      await Promise.all([relay, ...consumers.map((c) => c.stop())]);
    },
  };
}
