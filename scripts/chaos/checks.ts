// After the load: wait until everything settled (records final, no workflow running, outbox
// published, consumers caught up), then check money, workflows and events.
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { Client } from '@temporalio/client';
import pg from 'pg';
import { EVENT_CATALOG } from '../../domain/events/catalog';
import { WEBHOOK_CONSUMER, webhookDispatcher } from '../../domain/events/dispatcher';
import { dashboardProjector, PROJECTOR_NAME } from '../../domain/events/projector';
import { checkMoneyInvariantsAt, RESERVATION_LINKS } from '../../domain/ledger/invariants';
import type { ApiClient, Receiver } from './client';
import { log, sleep } from './infra';
import type { LoadResult, Setup } from './load';

export const CONSUMERS = [WEBHOOK_CONSUMER, PROJECTOR_NAME] as const;
const finalOf = (table: string) => RESERVATION_LINKS.find((l) => l.table === table)!.finalStatuses!;
const FINAL = { transfers: finalOf('transfers'), rail_payments: finalOf('rail_payments'), defi_swaps: finalOf('defi_swaps') };

export interface Broker {
  nc: NatsConnection;
  jsm: JetStreamManager;
  stream: string;
  close(): Promise<void>;
}

export async function connectBroker(url: string, stream: string): Promise<Broker> {
  const nc = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: 5000, name: 'chaos-check' });
  const jsm = await jetstreamManager(nc);
  return { nc, jsm, stream, close: () => nc.close() };
}

export interface ConsumerFigures {
  name: string;
  num_pending: number;
  num_ack_pending: number;
  num_redelivered: number;
  delivered: number;
  /** Deliveries beyond the first of each message (the consumer's delivery count less the last stream sequence it got). */
  redeliveries: number;
}

export async function consumerFigures(b: Broker): Promise<ConsumerFigures[]> {
  return Promise.all(
    CONSUMERS.map(async (name) => {
      const i = await b.jsm.consumers.info(b.stream, name);
      return {
        name,
        num_pending: i.num_pending,
        num_ack_pending: i.num_ack_pending,
        num_redelivered: i.num_redelivered,
        delivered: i.delivered.stream_seq,
        redeliveries: Math.max(0, i.delivered.consumer_seq - i.delivered.stream_seq),
      };
    }),
  );
}

/** Workflows of the queue still running, apart from those a schedule started (long-running by design). */
async function runningWorkflows(client: Client, taskQueue: string): Promise<Array<{ id: string; type: string }>> {
  const out: Array<{ id: string; type: string }> = [];
  for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
    if (w.searchAttributes?.TemporalScheduledById) continue;
    out.push({ id: w.workflowId, type: w.type });
    if (out.length >= 200) break;
  }
  return out;
}

export interface Pending {
  transfers: number;
  railPayments: number;
  swaps: number;
  outbox: number;
  deliveries: number;
  workflows: number;
  consumers: ConsumerFigures[];
  sampleWorkflows: string[];
}

async function pendingWork(db: pg.Client, client: Client, broker: Broker, taskQueue: string): Promise<Pending> {
  const q = async (sql: string, params: unknown[] = []) => Number((await db.query<{ n: string }>(sql, params)).rows[0].n);
  const [transfers, railPayments, swaps, outbox, deliveries] = [
    await q(`SELECT count(*) n FROM transfers WHERE NOT (status = ANY($1))`, [FINAL.transfers]),
    await q(`SELECT count(*) n FROM rail_payments WHERE NOT (status = ANY($1))`, [FINAL.rail_payments]),
    await q(`SELECT count(*) n FROM defi_swaps WHERE NOT (status = ANY($1))`, [FINAL.defi_swaps]),
    await q(`SELECT count(*) n FROM outbox_events WHERE published_at IS NULL`),
    await q(`SELECT count(*) n FROM webhook_deliveries WHERE status IN ('pending', 'retrying')`),
  ];
  const running = await runningWorkflows(client, taskQueue);
  const consumers = await consumerFigures(broker);
  return {
    transfers,
    railPayments,
    swaps,
    outbox,
    deliveries,
    workflows: running.length,
    consumers,
    sampleWorkflows: running.slice(0, 5).map((w) => `${w.type} ${w.id}`),
  };
}

const isSettled = (p: Pending) =>
  p.transfers + p.railPayments + p.swaps + p.outbox + p.deliveries + p.workflows === 0 && p.consumers.every((c) => c.num_pending === 0 && c.num_ack_pending === 0);

export function describePending(p: Pending): string {
  return (
    `transfers ${p.transfers}, rail payments ${p.railPayments}, swaps ${p.swaps} not final; outbox unpublished ${p.outbox}; ` +
    `deliveries pending ${p.deliveries}; workflows running ${p.workflows}${p.workflows ? ` (e.g. ${p.sampleWorkflows.join(', ')})` : ''}; ` +
    p.consumers.map((c) => `${c.name} pending ${c.num_pending} ack-pending ${c.num_ack_pending}`).join(', ')
  );
}

/** Polls until settled twice in a row (2 s apart) or the time is up; returns the seconds it took, or the last state. */
export async function settle(db: pg.Client, client: Client, broker: Broker, taskQueue: string, timeoutSeconds: number): Promise<{ seconds: number; settled: boolean; last: Pending | null }> {
  const start = Date.now();
  let last: Pending | null = null;
  let streak = 0;
  let lastLog = 0;
  while ((Date.now() - start) / 1000 < timeoutSeconds) {
    try {
      last = await pendingWork(db, client, broker, taskQueue);
      streak = isSettled(last) ? streak + 1 : 0;
      if (streak >= 2) return { seconds: (Date.now() - start) / 1000, settled: true, last };
      if (Date.now() - lastLog > 15_000) {
        log(`settling: ${describePending(last)}`);
        lastLog = Date.now();
      }
    } catch (err) {
      log(`settling: check failed (${(err as Error).message}), again`);
      streak = 0;
    }
    await sleep(2000);
  }
  return { seconds: (Date.now() - start) / 1000, settled: false, last };
}

export interface CheckResult {
  violations: string[];
  figures: Record<string, unknown>;
}

/** Every check of the brief; violations are human-readable lines. */
export async function verify(opts: {
  db: pg.Client;
  databaseUrl: string;
  client: Client;
  broker: Broker;
  taskQueue: string;
  api: ApiClient;
  setup: Setup;
  load: LoadResult;
  receiver: Receiver;
}): Promise<CheckResult> {
  const { db, client, broker, taskQueue, setup, load, receiver } = opts;
  const violations: string[] = [];
  const figures: Record<string, unknown> = {};
  const rows = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows;
  const limit = <T>(xs: T[], n = 10) => (xs.length > n ? [...xs.slice(0, n), `... ${xs.length - n} more`] : xs);

  // 1. Money.
  for (const p of await checkMoneyInvariantsAt(opts.databaseUrl)) violations.push(`money: ${p}`);

  // 2. Records: final, failed ones compensated, one record per idempotency key, answers match rows.
  const transferStates = await rows<{ kind: string; status: string; compensated: boolean; n: string }>(
    `SELECT CASE WHEN workflow_id IS NULL THEN 'immediate' ELSE 'workflow' END AS kind, status, compensation_executed AS compensated, count(*) n
       FROM transfers WHERE user_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [setup.userId],
  );
  figures.transferStates = transferStates.map((r) => `${r.kind} ${r.status}${r.compensated ? ' (compensated)' : ''}: ${r.n}`);
  for (const r of transferStates) if (!FINAL.transfers.includes(r.status)) violations.push(`transfers: ${r.n} ${r.kind} transfer(s) still ${r.status}`);
  // A failed workflow transfer either voided its reservation (compensation_executed) or never reserved.
  const uncompensated = await rows<{ id: string; entry_status: string }>(
    `SELECT t.id, e.status AS entry_status FROM transfers t JOIN journal_entries e ON e.id = t.entry_id
      WHERE t.status = 'failed' AND t.workflow_id IS NOT NULL AND (NOT t.compensation_executed OR e.status <> 'voided')`,
  );
  for (const r of uncompensated) violations.push(`transfers: failed transfer ${r.id} has its entry ${r.entry_status} without compensation`);
  // Records left in a non-final state: is their workflow running, finished, or was it never started?
  for (const table of ['transfers', 'defi_swaps', 'rail_payments'] as const) {
    const open = await rows<{ id: string; status: string; workflow_id: string | null; created_at: Date }>(
      `SELECT id, status, workflow_id, created_at FROM ${table} WHERE NOT (status = ANY($1)) ORDER BY created_at LIMIT 20`,
      [FINAL[table]],
    );
    for (const r of open) {
      let wf = 'no workflow id';
      if (r.workflow_id) {
        try {
          const d = await client.workflow.getHandle(r.workflow_id).describe();
          wf = `workflow ${d.status.name}`;
        } catch (err) {
          wf = (err as Error).name === 'WorkflowNotFoundError' ? 'its workflow was never started' : `workflow: ${(err as Error).message}`;
        }
      }
      const stuck = wf !== 'workflow RUNNING';
      violations.push(`${stuck ? 'stuck' : 'open'}: ${table} ${r.id} is ${r.status} (created ${r.created_at.toISOString()}), ${wf}`);
    }
  }
  const dupTransfers = await rows<{ reference: string; n: string }>(
    `SELECT reference, count(*) n FROM transfers WHERE user_id = $1 AND reference IS NOT NULL GROUP BY reference HAVING count(*) > 1 ORDER BY reference`,
    [setup.userId],
  );
  for (const r of limit(dupTransfers.map((d) => `${d.reference} (${d.n} transfers)`))) violations.push(`idempotency: one Idempotency-Key, several transfers: ${r}`);
  const dupRails = await rows<{ memo: string; n: string }>(
    `SELECT memo, count(*) n FROM rail_payments WHERE user_id = $1 GROUP BY memo HAVING count(*) > 1`,
    [setup.userId],
  ).catch(() => []);
  for (const r of dupRails) violations.push(`idempotency: one Idempotency-Key, ${r.n} rail payments (memo ${r.memo})`);
  for (const kind of ['immediate', 'workflow'] as const) {
    const f = load.byKind[kind];
    const n = Number(
      (await rows<{ n: string }>(`SELECT count(*) n FROM transfers WHERE user_id = $1 AND (workflow_id IS NULL) = $2 AND reference LIKE 'chaos-%'`, [setup.userId, kind === 'immediate']))[0].n,
    );
    figures[`${kind}Rows`] = n;
    // A refused request creates no transfer; an unanswered one may have.
    if (n < f.done || n > f.done + f.unanswered) violations.push(`transfers: ${f.done} ${kind} transfers answered 201 (${f.unanswered} unanswered) but ${n} rows exist`);
    const missing = await rows<{ id: string }>(`SELECT u.id FROM unnest($1::text[]) u(id) WHERE NOT EXISTS (SELECT 1 FROM transfers t WHERE t.id = u.id)`, [f.ids]);
    for (const m of limit(missing.map((x) => x.id))) violations.push(`transfers: answered 201 but no such transfer: ${m}`);
  }
  const swapsN = Number((await rows<{ n: string }>(`SELECT count(*) n FROM defi_swaps WHERE user_id = $1`, [setup.userId]))[0].n);
  if (swapsN < load.byKind.swap.done || swapsN > load.byKind.swap.done + load.byKind.swap.unanswered) {
    violations.push(`swaps: ${load.byKind.swap.done} answered 201 but ${swapsN} swaps exist`);
  }
  const railsN = Number((await rows<{ n: string }>(`SELECT count(*) n FROM rail_payments WHERE user_id = $1`, [setup.userId]))[0].n);
  if (railsN < load.byKind.rail.done || railsN > load.byKind.rail.done + load.byKind.rail.unanswered) {
    violations.push(`rail payments: ${load.byKind.rail.done} answered 201 but ${railsN} payments exist`);
  }
  figures.swapStates = (await rows<{ status: string; n: string }>(`SELECT status, count(*) n FROM defi_swaps GROUP BY 1 ORDER BY 1`)).map((r) => `${r.status}: ${r.n}`);
  figures.railStates = (await rows<{ status: string; n: string }>(`SELECT status, count(*) n FROM rail_payments GROUP BY 1 ORDER BY 1`)).map((r) => `${r.status}: ${r.n}`);

  // 3. Balances: none negative, nothing reserved, and the hot accounts hold what was deposited
  //    less the fees of completed transfers and the completed rail payments.
  let total = 0;
  for (const id of setup.accounts) {
    const r = await opts.api.call('GET', `/api/v2/accounts/${id}/balances`);
    const b = (r.body?.data?.balances ?? []).find((x: { asset_code: string }) => x.asset_code === 'USD');
    if (!b) {
      violations.push(`balances: account ${id} has no USD balance (${r.status})`);
      continue;
    }
    total += Number(b.total_balance);
    if (Number(b.total_balance) < 0 || Number(b.available_balance) < 0) violations.push(`balances: account ${id} went negative: ${JSON.stringify(b)}`);
    if (Number(b.total_balance) !== Number(b.available_balance)) violations.push(`balances: account ${id} still has funds reserved: ${JSON.stringify(b)}`);
  }
  const negatives = await rows<{ id: string; bal: string }>(
    `SELECT a.id, (a.credits_posted - a.debits_posted)::text AS bal FROM ledger_accounts a
      WHERE a.account_id = ANY($1::text[]) AND a.normal_balance = 'credit' AND a.credits_posted - a.debits_posted - a.debits_pending < 0`,
    [setup.accounts],
  ).catch((err) => {
    violations.push(`balances: ledger query failed: ${(err as Error).message}`);
    return [];
  });
  for (const n of negatives) violations.push(`balances: ledger account ${n.id} is below zero (${n.bal})`);
  const [{ fees, rails }] = await rows<{ fees: string; rails: string }>(
    `SELECT (SELECT COALESCE(sum(fee_amount), 0) FROM transfers WHERE user_id = $1 AND status = 'completed')::text AS fees,
            (SELECT COALESCE(sum(amount), 0) FROM rail_payments WHERE user_id = $1 AND status = 'completed')::text AS rails`,
    [setup.userId],
  );
  const expected = setup.deposited - Number(fees) - Number(rails);
  figures.hotAccountsTotal = total.toFixed(2);
  figures.expectedTotal = `${expected.toFixed(2)} (deposits ${setup.deposited.toFixed(2)} - fees ${Number(fees).toFixed(2)} - rail payments ${Number(rails).toFixed(2)})`;
  if (Math.abs(total - expected) > 0.005) violations.push(`balances: the hot accounts hold ${total.toFixed(2)}, expected ${figures.expectedTotal}`);

  // 4. Workflows: every execution of the queue closed as Completed (schedules' own runs aside while running).
  const byStatus: Record<string, number> = {};
  for (const status of ['Completed', 'Failed', 'Terminated', 'Canceled', 'TimedOut', 'ContinuedAsNew', 'Running']) {
    const c = await client.workflow.count(`TaskQueue = '${taskQueue}' AND ExecutionStatus = '${status}'`);
    if (c.count) byStatus[status] = c.count;
  }
  figures.workflowsByStatus = byStatus;
  const typeCounts: Record<string, number> = {};
  const bad: string[] = [];
  for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus != 'Completed'` })) {
    if (w.status.name === 'RUNNING' && w.searchAttributes?.TemporalScheduledById) continue;
    bad.push(`${w.type} ${w.workflowId} ${w.status.name}`);
    if (bad.length > 50) break;
  }
  for (const b of limit(bad)) violations.push(`workflows: not completed: ${b}`);
  for (const type of ['transferWorkflow', 'swapWorkflow', 'railPaymentWorkflow', 'webhookDeliveryWorkflow']) {
    typeCounts[type] = (await client.workflow.count(`TaskQueue = '${taskQueue}' AND WorkflowType = '${type}'`)).count;
  }
  figures.workflowsByType = typeCounts;

  // 5. Events: each consumer with receipts holds exactly one per published event; the projector counted each once.
  //    The events are the outbox's rows, or, where an outbox row carries several events (derived), the
  //    platform_events view of every event.
  const [{ view }] = await rows<{ view: string | null }>(`SELECT to_regclass('platform_events')::text AS view`);
  const events = view ? 'platform_events' : 'outbox_events';
  figures.eventsRelation = events;
  const [{ published, unpublished }] = await rows<{ published: string; unpublished: string }>(
    `SELECT count(*) FILTER (WHERE published_at IS NOT NULL) published, count(*) FILTER (WHERE published_at IS NULL) unpublished FROM ${events}`,
  );
  figures.eventsPublished = Number(published);
  if (Number(unpublished) > 0) violations.push(`events: ${unpublished} outbox events never published`);
  // Consumers that keep receipts; the webhook dispatcher's effects are unique per event instead
  // (domain/events/dispatcher.ts), so its exactly-once is what section 6 checks: one delivery per event.
  for (const consumer of [webhookDispatcher(), dashboardProjector].filter((c) => c.receipts !== false).map((c) => c.name)) {
    const [r] = await rows<{ receipts: string; missing: string; extra: string }>(
      `SELECT (SELECT count(*) FROM event_receipts WHERE consumer = $1) receipts,
              (SELECT count(*) FROM ${events} o WHERE o.published_at IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM event_receipts r WHERE r.consumer = $1 AND r.event_id = o.id)) missing,
              (SELECT count(*) FROM event_receipts r WHERE r.consumer = $1
                  AND NOT EXISTS (SELECT 1 FROM ${events} o WHERE o.id = r.event_id AND o.published_at IS NOT NULL)) extra`,
      [consumer],
    );
    figures[`receipts_${consumer}`] = Number(r.receipts);
    if (Number(r.receipts) !== Number(published) || Number(r.missing) || Number(r.extra)) {
      violations.push(`events: ${consumer} has ${r.receipts} receipts for ${published} published events (${r.missing} events without one, ${r.extra} receipts without an event)`);
      const ex = await rows<{ id: string; type: string }>(
        `SELECT o.id, o.type FROM ${events} o WHERE o.published_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM event_receipts r WHERE r.consumer = $1 AND r.event_id = o.id) LIMIT 5`,
        [consumer],
      );
      for (const e of ex) violations.push(`events: ${consumer} never processed ${e.type} ${e.id}`);
    }
  }
  const [{ projected }] = await rows<{ projected: string }>(`SELECT COALESCE(sum(events), 0)::text AS projected FROM event_throughput`);
  figures.projectorEvents = Number(projected);
  if (Number(projected) !== Number(published)) violations.push(`events: the projector counted ${projected} events, ${published} were published`);

  // 6. Webhook deliveries: one per (webhook, event) for every event the webhook subscribes to; all succeeded;
  //    the receiver got each at least once.
  const wide = EVENT_CATALOG.filter((e) => e.environmentWide).map((e) => e.type);
  const all = setup.webhookEvents.includes('*');
  const expectedEvents = await rows<{ id: string }>(
    `SELECT id FROM ${events} WHERE environment = 'sandbox' AND published_at IS NOT NULL AND (user_id = $1 OR (user_id IS NULL AND type = ANY($2::text[])))
        AND ($3 OR type = ANY($4::text[]))`,
    [setup.userId, wide, all, setup.webhookEvents],
  );
  const expectedIds = new Set(expectedEvents.map((e) => e.id));
  const deliveries = await rows<{ event_id: string; n: string; statuses: string[] }>(
    `SELECT d.event_id, count(*) n, array_agg(d.status) statuses FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE w.user_id = $1 AND d.replay_of IS NULL GROUP BY d.event_id`,
    [setup.userId],
  );
  const delivered = new Map(deliveries.map((d) => [d.event_id, d]));
  const missingDeliveries = [...expectedIds].filter((id) => !delivered.has(id));
  const doubled = deliveries.filter((d) => Number(d.n) > 1).map((d) => `${d.event_id} x${d.n}`);
  const unexpected = deliveries.filter((d) => !expectedIds.has(d.event_id)).map((d) => d.event_id);
  const notSucceeded = deliveries.filter((d) => d.statuses.some((s) => s !== 'succeeded')).map((d) => `${d.event_id} ${d.statuses.join('/')}`);
  figures.webhookEvents = expectedIds.size;
  figures.webhookDeliveries = deliveries.reduce((t, d) => t + Number(d.n), 0);
  for (const m of limit(missingDeliveries)) violations.push(`webhooks: no delivery for event ${m}`);
  for (const d of limit(doubled)) violations.push(`webhooks: more than one delivery for event ${d}`);
  for (const u of limit(unexpected)) violations.push(`webhooks: a delivery for an event the webhook does not subscribe to: ${u}`);
  for (const s of limit(notSucceeded)) violations.push(`webhooks: delivery not succeeded: ${s}`);
  const notReceived = [...expectedIds].filter((id) => !receiver.counts.has(id));
  for (const m of limit(notReceived)) violations.push(`webhooks: the receiver never got event ${m}`);
  const strangers = [...receiver.counts.keys()].filter((id) => !expectedIds.has(id));
  for (const s of limit(strangers)) violations.push(`webhooks: the receiver got an event that is not the user's: ${s}`);
  let duplicates = 0;
  for (const n of receiver.counts.values()) duplicates += n - 1;
  figures.receiverDeliveries = receiver.total;
  figures.receiverDuplicates = duplicates;

  // 7. The broker's view.
  const consumers = await consumerFigures(broker);
  figures.consumers = consumers;
  const si = await broker.jsm.streams.info(broker.stream);
  figures.streamMessages = si.state.messages;
  if (si.state.messages !== Number(published)) figures.streamNote = `the stream holds ${si.state.messages} messages for ${published} published events (re-publishes after the duplicate window are stored twice; receipts make them harmless)`;
  return { violations, figures };
}
