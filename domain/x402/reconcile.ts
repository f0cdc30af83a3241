/**
 * Reconciliation of production payments stuck 'settling' (docs/x402.md, "Stuck
 * settlements"). A payment is claimed 'settling' (its nonce and the payer's and agent's budget
 * held) before the facilitator's /settle is called; when that call gives no answer, or the process
 * stops before the answer is written, the row would stay so forever. Every 5 minutes the
 * 'x402-settlement-reconcile' schedule (x402ReconcileWorkflow) takes each such payment claimed at
 * least X402_RECONCILE_AFTER_SECONDS ago and asks its network's chain, through JSON-RPC, whether
 * the EIP-3009 authorization was used (USDC's `authorizationState(authorizer, nonce)`):
 *
 * - used: the USDC arrived, so the entry a settlement posts is posted (same ledger key: whichever of
 *   this and a late facilitator answer comes second posts nothing) and the payment is 'settled',
 *   with the transaction found in the token's AuthorizationUsed log (or the one the facilitator
 *   reported pending), else none: the chain's state is known, its transaction not;
 * - unused, at a block whose time has reached the authorization's validBefore: it can never be
 *   used, so the payment is 'failed' (PAYMENT_SETTLEMENT_EXPIRED), which frees its budget;
 * - unused and still valid: left for the next run (the facilitator may yet submit it).
 *
 * The chain is read at its finalized block, so no decision rests on a block a reorganisation could
 * undo. A network without a JSON-RPC URL (X402_RPC_URLS, else CHAIN_RPC_URLS' entry for its chain)
 * is never guessed at: its payments are left, their last_error says why, and the run reports them.
 * Idempotent: each decision is taken under the payment's row lock, on a payment still 'settling'.
 */
import { createPublicClient, getAddress, http, parseAbi, type Block, type Hex, type PublicClient } from 'viem';
import type pg from 'pg';
import { getPool, withTransaction } from '../db/pool';
import { parseRpcUrls } from '../chains/production';
import { loadConfig } from '../platform/config';
import { ensureIntervalSchedule } from '../temporal/interval-schedule';
import type { ScheduleResult } from '../temporal/ensure-schedule';
import { PAYMENT_NETWORKS } from './networks';
import { bookOnChainSettlement, type OnChainPayment } from './payments';

export const X402_RECONCILE_SCHEDULE_ID = 'x402-settlement-reconcile';
export const X402_RECONCILE_WORKFLOW = 'x402ReconcileWorkflow';
export const X402_RECONCILE_EVERY_MS = 5 * 60_000;

/** Payments looked at per run, oldest first (the next run takes the rest). */
const BATCH = 200;
/** How far back the AuthorizationUsed log is looked for (Base: about 3 hours; Ethereum: 17). */
const LOG_LOOKBACK_BLOCKS = 5_000n;
/** Decisions are final: they rest on blocks no reorganisation can undo. */
const BLOCK_TAG = 'finalized';

const USDC = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)', 'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)']);

/** Every 5 minutes; safe to call from every worker at every start. */
export function ensureX402ReconcileSchedule(): Promise<ScheduleResult> {
  return ensureIntervalSchedule({ id: X402_RECONCILE_SCHEDULE_ID, workflowType: X402_RECONCILE_WORKFLOW, everyMs: X402_RECONCILE_EVERY_MS });
}

export interface ReconcileReport {
  /** Payments settling past the threshold that this run looked at. */
  examined: number;
  settled: number;
  failed: number;
  /** Unused and still valid: left for the next run. */
  pending: number;
  /** Left because their network has no JSON-RPC URL. */
  unconfigured: number;
  /** Left because the node did not answer. */
  errors: number;
  unconfigured_networks: string[];
}

/**
 * The JSON-RPC URL of each production payment network: X402_RPC_URLS ("eip155:8453=https://...,
 * eip155:1=https://..."), else CHAIN_RPC_URLS' entry for the network's chain (base, ethereum).
 */
export function rpcUrlFor(network: string): string | null {
  const cfg = loadConfig();
  const own = new Map<string, string>();
  for (const part of cfg.x402RpcUrls.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=');
    const [name, url] = [part.slice(0, i).trim(), part.slice(i + 1).trim()];
    if (i <= 0 || !PAYMENT_NETWORKS.some((n) => n.network === name && n.environments.includes('production')) || !/^https?:\/\/\S+$/.test(url)) {
      throw new Error(`X402_RPC_URLS entry "${part}" is not <production network>=<http(s) URL>, e.g. eip155:8453=https://base.example`);
    }
    own.set(name, url);
  }
  if (own.has(network)) return own.get(network)!;
  const chain = PAYMENT_NETWORKS.find((n) => n.network === network)?.bookChain;
  return chain && cfg.chainRpcUrls.trim() ? (parseRpcUrls(cfg.chainRpcUrls)[chain] ?? null) : null;
}

interface Settling extends OnChainPayment {
  /** Unix seconds. */
  validBefore: bigint;
  transactionHash: string | null;
}

type Outcome = 'settled' | 'failed' | 'pending';

const messageOf = (err: unknown) => ((err as { shortMessage?: string }).shortMessage ?? (err as Error).message ?? String(err)).split('\n')[0];

async function note(pool: pg.Pool, ids: string[], error: string): Promise<void> {
  await pool.query(`UPDATE x402_payments SET last_error = $2 WHERE id = ANY($1) AND status = 'settling'`, [ids, error.slice(0, 1000)]);
}

/** The transaction that used the authorization, from the token's AuthorizationUsed log; null when not found. */
async function usedIn(client: PublicClient, p: Settling, head: bigint): Promise<string | null> {
  try {
    const logs = await client.getLogs({
      address: getAddress(p.asset),
      event: USDC[1],
      args: { authorizer: getAddress(p.payer), nonce: p.nonce as Hex },
      fromBlock: head > LOG_LOOKBACK_BLOCKS ? head - LOG_LOOKBACK_BLOCKS : 0n,
      toBlock: head,
    });
    return logs[0]?.transactionHash ?? null;
  } catch {
    // The settlement is known from the chain's state; its hash is a detail some nodes will not search for.
    return null;
  }
}

async function reconcileOne(pool: pg.Pool, client: PublicClient, head: Block<bigint, false, 'finalized'>, p: Settling): Promise<Outcome> {
  const used = await client.readContract({ address: getAddress(p.asset), abi: USDC, functionName: 'authorizationState', args: [getAddress(p.payer), p.nonce as Hex], blockNumber: head.number });
  if (used) {
    const transaction = p.transactionHash ?? (await usedIn(client, p, head.number));
    return withTransaction(async (c) => {
      const { rows } = await c.query(`SELECT 1 FROM x402_payments WHERE id = $1 AND status = 'settling' FOR UPDATE`, [p.id]);
      if (!rows[0]) return 'pending';
      await bookOnChainSettlement(c, p, transaction, null, { reconciled: `authorization used as of block ${head.number}` });
      await c.query('UPDATE x402_payments SET reconciled_at = now() WHERE id = $1', [p.id]);
      return 'settled';
    }, pool);
  }
  if (head.timestamp >= p.validBefore) {
    const when = new Date(Number(head.timestamp) * 1000).toISOString();
    const { rowCount } = await pool.query(
      `UPDATE x402_payments SET status = 'failed', failure_code = 'PAYMENT_SETTLEMENT_EXPIRED', reconciled_at = now(),
              failure_reason = $2 WHERE id = $1 AND status = 'settling'`,
      [p.id, `The authorization was not used on ${p.network} by block ${head.number} (${when}), past its validBefore: it can never settle`],
    );
    return rowCount ? 'failed' : 'pending';
  }
  await pool.query(`UPDATE x402_payments SET reconciled_at = now() WHERE id = $1 AND status = 'settling'`, [p.id]);
  return 'pending';
}

/**
 * Settles or fails, from the chain's state, the production payments still 'settling' that were
 * claimed at least `afterSeconds` (X402_RECONCILE_AFTER_SECONDS) before `asOf`.
 */
export async function reconcileSettlingPayments(opts: { asOf?: Date; afterSeconds?: number } = {}, pool: pg.Pool = getPool()): Promise<ReconcileReport> {
  const after = opts.afterSeconds ?? loadConfig().x402ReconcileAfterSeconds;
  const { rows } = await pool.query<Omit<Settling, 'validBefore'> & { validBefore: string }>(
    `SELECT id, environment, network, asset, payer, nonce, amount::text AS amount, purpose, resource, transaction_hash AS "transactionHash",
            extract(epoch FROM valid_before)::bigint::text AS "validBefore"
       FROM x402_payments
      WHERE status = 'settling' AND environment = 'production' AND created_at <= $1::timestamptz - make_interval(secs => $2)
      ORDER BY created_at, id LIMIT ${BATCH}`,
    [opts.asOf ?? new Date(), after],
  );
  const report: ReconcileReport = { examined: rows.length, settled: 0, failed: 0, pending: 0, unconfigured: 0, errors: 0, unconfigured_networks: [] };
  const byNetwork = new Map<string, Settling[]>();
  for (const r of rows) byNetwork.set(r.network, [...(byNetwork.get(r.network) ?? []), { ...r, validBefore: BigInt(r.validBefore) }]);
  for (const [network, payments] of byNetwork) {
    const ids = payments.map((p) => p.id);
    const url = rpcUrlFor(network);
    if (!url) {
      report.unconfigured += payments.length;
      report.unconfigured_networks.push(network);
      await note(pool, ids, `Not reconciled: no JSON-RPC URL for ${network} (set X402_RPC_URLS)`);
      continue;
    }
    const client = createPublicClient({ transport: http(url, { timeout: 10_000, retryCount: 1 }) }) as PublicClient;
    let head: Block<bigint, false, 'finalized'>;
    try {
      head = await client.getBlock({ blockTag: BLOCK_TAG });
    } catch (err) {
      report.errors += payments.length;
      await note(pool, ids, `Not reconciled: the ${network} node did not answer: ${messageOf(err)}`);
      continue;
    }
    for (const p of payments) {
      try {
        report[await reconcileOne(pool, client, head, p)]++;
      } catch (err) {
        report.errors++;
        await note(pool, [p.id], `Not reconciled: ${messageOf(err)}`);
      }
    }
  }
  return report;
}
