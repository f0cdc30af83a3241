/**
 * Swaps: a quote executed once by its owner. createSwap spends the quote and records the swap as
 * pending; the swap workflow (workflows/swap.ts, activities/defi) checks, reserves, submits, waits
 * for inclusion, executes against the pools (./settle.ts) and settles, or compensates.
 */
import { custodyAddress } from '../../chains/custody';
import type pg from 'pg';
import { validateAddress } from '../../chains/addresses';
import { getChain } from '../../chains/registry';
import { updateAssignments } from '../../db/update';
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { resolveAccount } from '../accounts';
import { routerAddress } from '../gas';
import { lockSwapQuote, type StoredRoute } from './quotes';
import { outcomeOf, type Outcome, type OutcomeRow } from '../../platform/outcome';

export type SwapStatus = 'pending' | 'submitted' | 'included' | 'completed' | 'failed';
export type SandboxOutcome = 'revert' | 'drop';

export interface Swap extends Outcome {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  quoteId: string;
  chain: string;
  tokenIn: string;
  tokenOut: string;
  assetIn: string;
  assetOut: string;
  dex: string;
  route: StoredRoute;
  amountIn: string;
  expectedOutput: string;
  minimumOutput: string;
  actualOutput: string | null;
  networkFee: string | null;
  walletAddress: string;
  routerAddress: string;
  sandboxOutcome: SandboxOutcome | null;
  maxGasPriceGwei: string | null;
  deadlineAt: Date;
  status: SwapStatus;
  txHash: string | null;
  gasPriceGwei: string | null;
  gasUsed: string | null;
  blockNumber: string | null;
  reservationEntryId: string | null;
  settlementEntryId: string | null;
  workflowId: string;
  crosschainSwapId: string | null;
  /**
   * Set (not stored) when a request found this swap by its Idempotency-Key instead of making it:
   * the request ran before, and its first run's swap is the answer.
   */
  replayed?: true;
}

interface Row extends OutcomeRow {
  id: string;
  environment: Environment;
  user_id: string;
  account_id: string;
  quote_id: string;
  chain: string;
  token_in: string;
  token_out: string;
  asset_in: string;
  asset_out: string;
  dex: string;
  route: StoredRoute;
  amount_in: string;
  expected_output: string;
  minimum_output: string;
  actual_output: string | null;
  network_fee: string | null;
  wallet_address: string;
  router_address: string;
  sandbox_outcome: SandboxOutcome | null;
  max_gas_price_gwei: string | null;
  deadline_at: Date;
  status: SwapStatus;
  tx_hash: string | null;
  gas_price_gwei: string | null;
  gas_used: string | null;
  block_number: string | null;
  reservation_entry_id: string | null;
  settlement_entry_id: string | null;
  workflow_id: string;
  crosschain_swap_id: string | null;
  p_in: number;
  p_out: number;
}

const SELECT = `SELECT s.*, ai.precision AS p_in, ao.precision AS p_out FROM defi_swaps s
  JOIN assets ai ON ai.code = s.asset_in JOIN assets ao ON ao.code = s.asset_out`;
const WITH_PRECISION = (cte: string) => `WITH s AS (${cte}) SELECT s.*, ai.precision AS p_in, ao.precision AS p_out FROM s
  JOIN assets ai ON ai.code = s.asset_in JOIN assets ao ON ao.code = s.asset_out`;

const fmt = (v: string | null, p: number) => (v === null ? null : new D(v).toFixed(p));
/** a - b at a's scale (both are amounts of the same asset, already at its precision). */
const minus = (a: string, b: string) => new D(a).minus(b).toFixed(a.split('.')[1]?.length ?? 0);

/** What reached the customer's book: the actual output less the network fee (null until settled). */
export function amountReceived(s: Pick<Swap, 'actualOutput' | 'networkFee'>): string | null {
  return s.actualOutput && s.networkFee ? minus(s.actualOutput, s.networkFee) : null;
}

function toSwap(r: Row): Swap {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    quoteId: r.quote_id,
    chain: r.chain,
    tokenIn: r.token_in,
    tokenOut: r.token_out,
    assetIn: r.asset_in,
    assetOut: r.asset_out,
    dex: r.dex,
    route: r.route,
    amountIn: fmt(r.amount_in, r.p_in)!,
    expectedOutput: fmt(r.expected_output, r.p_out)!,
    minimumOutput: fmt(r.minimum_output, r.p_out)!,
    actualOutput: fmt(r.actual_output, r.p_out),
    networkFee: fmt(r.network_fee, r.p_out),
    walletAddress: r.wallet_address,
    routerAddress: r.router_address,
    sandboxOutcome: r.sandbox_outcome,
    maxGasPriceGwei: r.max_gas_price_gwei === null ? null : new D(r.max_gas_price_gwei).toFixed(),
    deadlineAt: r.deadline_at,
    status: r.status,
    txHash: r.tx_hash,
    gasPriceGwei: r.gas_price_gwei === null ? null : new D(r.gas_price_gwei).toFixed(),
    gasUsed: r.gas_used,
    blockNumber: r.block_number,
    reservationEntryId: r.reservation_entry_id,
    settlementEntryId: r.settlement_entry_id,
    workflowId: r.workflow_id,
    crosschainSwapId: r.crosschain_swap_id,
    ...outcomeOf(r),
  };
}

export const swapWorkflowId = (id: string) => `swap-${id}`;

export interface CreateSwapInput {
  userId: string;
  environment: Environment;
  quoteId: string;
  walletAddress: string;
  /** Gas price cap in the chain's gas unit (gwei on EVM chains); decimal string. */
  maxGasPriceGwei?: string | null;
  deadlineMinutes: number;
  accountId?: string | null;
  sandboxOutcome?: SandboxOutcome | null;
  crosschainSwapId?: string | null;
  /**
   * The request's Idempotency-Key as its scope records it (api/plugins/idempotency.ts
   * operationRequestKey): written with the swap, unique, so a request run again gets the swap its
   * first run made (replayed) instead of a second one.
   */
  requestKey?: string | null;
  now: Date;
}

/** The swap a request with this key made, if any. */
export async function findSwapByRequestKey(requestKey: string, c: Queryable = getDb()): Promise<Swap | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE s.request_key = $1`, [requestKey]);
  return rows[0] ? toSwap(rows[0]) : null;
}

/**
 * Spends the quote (unknown or another user's: 422 QUOTE_NOT_FOUND; used: 422
 * QUOTE_ALREADY_USED; expired: 422 QUOTE_EXPIRED) and records the swap as pending. The account
 * is the given one or the caller's first with enough of the token on that chain; 422
 * INSUFFICIENT_FUNDS when the account's book cannot pay (the workflow's reservation decides in
 * the end). The caller starts the workflow. With a request key a swap already holds: that swap
 * (replayed), nothing written and the quote left as it is.
 */
export async function createSwap(input: CreateSwapInput, client?: pg.PoolClient): Promise<Swap> {
  const run = async (c: pg.PoolClient): Promise<Swap> => {
    const q = await lockSwapQuote(c, input.quoteId);
    // After the quote's lock: a run of the same request that spent it has committed by now.
    const known = input.requestKey ? await findSwapByRequestKey(input.requestKey, c) : null;
    if (known) return { ...known, replayed: true };
    if (!q || q.userId !== input.userId || q.environment !== input.environment) {
      throw new DomainError('QUOTE_NOT_FOUND', `No quote ${input.quoteId} for this caller`, '/quote_id');
    }
    if (q.usedAt) throw new DomainError('QUOTE_ALREADY_USED', `Quote ${q.id} was already executed (swap ${q.swapId})`, '/quote_id');
    if (q.expiresAt.getTime() <= input.now.getTime()) {
      throw new DomainError('QUOTE_EXPIRED', `The quote expired at ${q.expiresAt.toISOString()}; request a new one`, '/quote_id');
    }
    const chain = getChain(q.chain);
    const wallet = validateAddress(chain.id, input.walletAddress, '/wallet_address');
    if (input.sandboxOutcome && input.environment !== 'sandbox') {
      throw new DomainError('SANDBOX_ONLY', 'sandbox_outcome is only accepted with sandbox keys', '/sandbox_outcome');
    }
    const acct = await resolveAccount(
      { userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: q.assetIn, chain: q.chain, needed: q.amountIn },
      c,
    );
    if (acct.available !== null && new D(acct.available).lt(q.amountIn)) {
      throw new DomainError('INSUFFICIENT_FUNDS', `The ${q.tokenIn} balance on ${q.chain} (${acct.available}) is below ${q.amountIn}`, '/quote_id');
    }
    // The platform signs only from the account's custody address: a swap "from" any other wallet is
    // one no real chain would take, and its output would land outside the customer's books.
    const custody = custodyAddress(acct.accountId, chain.id);
    if (wallet !== custody) {
      throw new DomainError('WALLET_NOT_CUSTODIAL', `Swaps execute from the account's custody address on ${chain.id} (${custody}); the platform signs for no other wallet`, '/wallet_address');
    }
    const id = newId('swp');
    const { rows } = await c.query<Row>(
      WITH_PRECISION(`INSERT INTO defi_swaps (id, environment, user_id, account_id, quote_id, chain, token_in, token_out, asset_in, asset_out, dex, route,
                                amount_in, expected_output, minimum_output, wallet_address, router_address, sandbox_outcome, max_gas_price_gwei,
                                deadline_at, status, workflow_id, crosschain_swap_id, request_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, 'pending', $21, $22, $23)
         ON CONFLICT (request_key) WHERE request_key IS NOT NULL DO NOTHING RETURNING *`),
      [
        id,
        input.environment,
        input.userId,
        acct.accountId,
        q.id,
        q.chain,
        q.tokenIn,
        q.tokenOut,
        q.assetIn,
        q.assetOut,
        q.route.dex,
        JSON.stringify(q.route),
        q.amountIn,
        q.estimatedOutput,
        q.minimumOutput,
        wallet,
        routerAddress(chain, q.route.dex),
        input.sandboxOutcome ?? null,
        input.maxGasPriceGwei ?? null,
        new Date(input.now.getTime() + input.deadlineMinutes * 60_000),
        swapWorkflowId(id),
        input.crosschainSwapId ?? null,
        input.requestKey ?? null,
      ],
    );
    // Another run of the same request (with its own quote) committed the key's swap meanwhile.
    if (!rows[0]) return { ...(await findSwapByRequestKey(input.requestKey!, c))!, replayed: true };
    await c.query('UPDATE defi_swap_quotes SET used_at = $2, swap_id = $3 WHERE id = $1', [q.id, input.now, id]);
    return toSwap(rows[0]);
  };
  return client ? run(client) : withTransaction(run);
}

export async function getSwap(id: string, scope: { userId?: string; environment?: Environment } = {}, c: Queryable = getDb()): Promise<Swap | null> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE s.id = $1`, [id]);
  const r = rows[0];
  if (!r) return null;
  if ((scope.userId && r.user_id !== scope.userId) || (scope.environment && r.environment !== scope.environment)) return null;
  return toSwap(r);
}

export async function listSwaps(userId: string, environment: Environment, limit = 50, c: Queryable = getDb()): Promise<Swap[]> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE s.user_id = $1 AND s.environment = $2 ORDER BY s.created_at DESC, s.id DESC LIMIT $3`, [userId, environment, limit]);
  return rows.map(toSwap);
}

export async function lockSwap(c: Queryable, id: string): Promise<Swap> {
  const { rows } = await c.query<Row>(`${SELECT} WHERE s.id = $1 FOR UPDATE OF s`, [id]);
  if (!rows[0]) throw new DomainError('SWAP_NOT_FOUND', `swap ${id} not found`);
  return toSwap(rows[0]);
}

type Fields = Partial<{
  status: SwapStatus;
  tx_hash: string;
  gas_price_gwei: string;
  gas_used: string;
  block_number: string;
  reservation_entry_id: string;
  settlement_entry_id: string;
  actual_output: string;
  network_fee: string;
  failure_code: string;
  failure_reason: string;
  compensation_executed: boolean;
  completed_at: 'now';
  failed_at: 'now';
}>;

export async function updateSwap(c: Queryable, id: string, fields: Fields): Promise<Swap> {
  const { sets, values } = updateAssignments(id, fields);
  const { rows } = await c.query<Row>(WITH_PRECISION(`UPDATE defi_swaps SET ${sets} WHERE id = $1 RETURNING *`), values);
  return toSwap(rows[0]);
}

/**
 * Waits (polling) until the workflow has submitted the swap's transaction or failed before it,
 * so execute can answer with the tx hash. Returns the swap as it is at the end of the wait.
 */
export async function waitForSubmission(id: string, timeoutMs = 10_000): Promise<Swap> {
  const until = Date.now() + timeoutMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    const s = (await getSwap(id))!;
    if (s.status !== 'pending' || Date.now() >= until) return s;
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** The transaction the workflow sends for a swap (the same key always gives the same transaction). */
export function swapTxRequest(s: Swap, workflowId: string) {
  return {
    chain: s.chain,
    from: s.walletAddress,
    to: s.routerAddress,
    kind: 'swap' as const,
    token: s.tokenIn,
    amount: s.amountIn,
    data: {
      dex: s.dex,
      pools: s.route.pools,
      path: s.route.path,
      amount_out_min: s.minimumOutput,
      token_out: s.tokenOut,
      deadline: Math.floor(s.deadlineAt.getTime() / 1000),
      swap_id: s.id,
      ...(s.sandboxOutcome ? { sandbox: s.sandboxOutcome } : {}),
    },
    idempotencyKey: `${workflowId}:submit`,
    ...(s.maxGasPriceGwei ? { maxGasPriceGwei: s.maxGasPriceGwei } : {}),
  };
}
