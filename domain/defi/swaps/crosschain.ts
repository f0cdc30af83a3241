/**
 * Cross-chain swaps (POST /api/v2/crosschain/swap): bridge `from_token` from the source chain to
 * the destination chain, then swap it there for `to_token`, as one operation run by
 * crosschainSwapWorkflow (workflows/crosschain-swap.ts) with the bridge and the swap as child
 * workflows. Either both legs complete, or the customer ends with the original amount of the
 * original asset on the original chain:
 * - the bridge fails: its own compensation voids its reservation (nothing moved);
 * - the swap fails after the bridge completed: the bridged tokens are bridged back, and the fees
 *   of both bridges are refunded from fee revenue (the platform absorbs them), so the source book
 *   is exactly where it started.
 *
 *   pending -> bridging -> swapping -> completed
 *   bridging -> failed                               (bridge refunded itself)
 *   swapping -> returning -> failed                  (compensated: bridged back, fees refunded)
 *   returning -> failed COMPENSATION_FAILED          (the return bridge failed: funds stay on the
 *                                                     destination chain book; operations act)
 */
import type pg from 'pg';
import { custodyAddress } from '../../chains/custody';
import { getToken } from '../../chains/registry';
import { ensureChainLedgerAccount } from '../../chains/books';
import { amountRefusal, compareProtocols, createBridgeQuote, getBridgeTransfer, initiateBridgeTransfer, resolveRoute, type BridgeTransfer } from '../../crosschain';
import { updateAssignments } from '../../db/update';
import { getPool as getDb, withTransaction, type Queryable } from '../../db/pool';
import { postEntry, systemAccount, workflowIdempotencyKey } from '../../ledger';
import { DecimalMoney as D } from '../../money/amount';
import type { Environment } from '../../platform/environment';
import { DomainError } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { resolveAccount } from '../accounts';
import { createSwapQuote, priceTrade } from './quotes';
import { createSwap, getSwap, type SandboxOutcome, type Swap } from './index';
import { outcomeOf, type Outcome, type OutcomeRow } from '../../platform/outcome';

export type CrosschainSwapStatus = 'pending' | 'bridging' | 'swapping' | 'returning' | 'completed' | 'failed';

export interface CrosschainSwap extends Outcome {
  id: string;
  environment: Environment;
  userId: string;
  accountId: string;
  sourceChain: string;
  destinationChain: string;
  fromToken: string;
  toToken: string;
  amount: string;
  slippageBps: number;
  status: CrosschainSwapStatus;
  bridgeTransferId: string | null;
  bridgedAmount: string | null;
  swapId: string | null;
  outputAmount: string | null;
  returnBridgeTransferId: string | null;
  returnedAmount: string | null;
  workflowId: string;
}

const num = (v: string | null) => (v === null ? null : new D(v).toFixed());

function toRecord(r: Record<string, any>): CrosschainSwap {
  return {
    id: r.id,
    environment: r.environment,
    userId: r.user_id,
    accountId: r.account_id,
    sourceChain: r.source_chain,
    destinationChain: r.destination_chain,
    fromToken: r.from_token,
    toToken: r.to_token,
    amount: new D(r.amount).toFixed(),
    slippageBps: r.slippage_bps,
    status: r.status,
    bridgeTransferId: r.bridge_transfer_id,
    bridgedAmount: num(r.bridged_amount),
    swapId: r.swap_id,
    outputAmount: num(r.output_amount),
    returnBridgeTransferId: r.return_bridge_transfer_id,
    returnedAmount: num(r.returned_amount),
    workflowId: r.workflow_id,
    ...outcomeOf(r as OutcomeRow),
  };
}

export const crosschainSwapWorkflowId = (id: string) => `crosschain-swap-${id}`;

export interface CrosschainSwapInput {
  userId: string;
  environment: Environment;
  sourceChain: unknown;
  destinationChain: unknown;
  fromToken: unknown;
  toToken: unknown;
  amount: unknown;
  slippageBps: number;
  accountId?: string | null;
  sandboxOutcome?: SandboxOutcome | null;
  now: Date;
}

/**
 * Checks everything that can be checked before anything moves (each a 422 with a pointer): the
 * bridge route and amount (a protocol must carry it), the swap route on the destination chain
 * for the amount the bridge would deliver, the funds on the source chain book; then records the
 * operation as pending. The caller starts the workflow.
 */
export async function createCrosschainSwap(input: CrosschainSwapInput): Promise<CrosschainSwap> {
  const route = await resolveRoute(input.sourceChain, input.destinationChain, input.fromToken, { source: '/source_chain', destination: '/destination_chain', token: '/from_token' });
  const { amount, rows } = await compareProtocols(route, input.amount);
  const best = rows.find((r) => r.supported);
  if (!best) {
    const withOffer = rows.find((r) => r.offer);
    if (withOffer) {
      const bad = amountRefusal(withOffer.offer!)!;
      throw new DomainError(bad.code, bad.message, '/amount');
    }
    throw new DomainError('UNSUPPORTED_ROUTE', `no bridge carries ${route.assetCode} from ${route.source.id} to ${route.destination.id}`, '/destination_chain');
  }
  getToken(route.destination.id, input.toToken, '/to_token', '/destination_chain');
  // The swap leg must be possible for what the bridge would deliver (priced again after the bridge).
  await priceTrade({
    environment: input.environment,
    chain: route.destination.id,
    tokenIn: route.destinationToken.symbol,
    tokenOut: input.toToken,
    amountIn: new D(best.offer!.receiveAmount).toFixed(),
    now: input.now,
    pointers: { chain: '/destination_chain', tokenIn: '/from_token', tokenOut: '/to_token', amount: '/amount' },
  });
  if (input.sandboxOutcome && input.environment !== 'sandbox') {
    throw new DomainError('SANDBOX_ONLY', 'sandbox_outcome is only accepted with sandbox keys', '/sandbox_outcome');
  }
  const acct = await resolveAccount({ userId: input.userId, environment: input.environment, accountId: input.accountId, assetCode: route.assetCode, chain: route.source.id, needed: amount });
  if (acct.available !== null && new D(acct.available).lt(amount)) {
    throw new DomainError('INSUFFICIENT_FUNDS', `The ${route.sourceToken.symbol} balance on ${route.source.id} (${acct.available}) is below ${amount}`, '/amount');
  }
  const id = newId('xcs');
  const { rows: saved } = await getDb().query(
    `INSERT INTO defi_crosschain_swaps (id, environment, user_id, account_id, source_chain, destination_chain, from_token, to_token, amount, slippage_bps, status, workflow_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $11) RETURNING *`,
    [id, input.environment, input.userId, acct.accountId, route.source.id, route.destination.id, route.sourceToken.symbol, getToken(route.destination.id, input.toToken).symbol, amount, input.slippageBps, crosschainSwapWorkflowId(id)],
  );
  // The sandbox trigger rides on the record's workflow input, not in the table.
  return toRecord(saved[0]);
}

export async function getCrosschainSwap(id: string, scope: { userId?: string; environment?: Environment } = {}, c: Queryable = getDb()): Promise<CrosschainSwap | null> {
  const { rows } = await c.query('SELECT * FROM defi_crosschain_swaps WHERE id = $1', [id]);
  const r = rows[0];
  if (!r || (scope.userId && r.user_id !== scope.userId) || (scope.environment && r.environment !== scope.environment)) return null;
  return toRecord(r);
}

async function lock(c: pg.PoolClient, id: string): Promise<CrosschainSwap> {
  const { rows } = await c.query('SELECT * FROM defi_crosschain_swaps WHERE id = $1 FOR UPDATE', [id]);
  if (!rows[0]) throw new DomainError('NOT_FOUND', `cross-chain swap ${id} not found`);
  return toRecord(rows[0]);
}

type Fields = Partial<{
  status: CrosschainSwapStatus;
  bridge_transfer_id: string;
  bridged_amount: string;
  swap_id: string;
  output_amount: string;
  return_bridge_transfer_id: string;
  returned_amount: string;
  failure_code: string;
  failure_reason: string;
  compensation_executed: boolean;
  completed_at: 'now';
  failed_at: 'now';
}>;

async function update(c: Queryable, id: string, fields: Fields): Promise<CrosschainSwap> {
  const { sets, values } = updateAssignments(id, fields);
  const { rows } = await c.query(`UPDATE defi_crosschain_swaps SET ${sets} WHERE id = $1 RETURNING *`, values);
  return toRecord(rows[0]);
}

/** What a child workflow is started with (its id, input and search attributes). */
export interface ChildStart {
  recordId: string;
  workflowId: string;
  accountId: string;
  assetCode: string;
  amount: string;
  environment: Environment;
  userId: string;
  chain: string;
}

const bridgeChild = (t: BridgeTransfer): ChildStart => ({
  recordId: t.id,
  workflowId: t.workflowId,
  accountId: t.accountId,
  assetCode: t.assetCode,
  amount: t.amount,
  environment: t.environment,
  userId: t.userId,
  chain: t.sourceChain,
});

/** Quotes (best protocol) and initiates a bridge transfer at the workflow's clock. */
async function bridge(x: CrosschainSwap, from: string, to: string, token: string, amount: string, now: Date): Promise<BridgeTransfer> {
  const q = await createBridgeQuote({ userId: x.userId, environment: x.environment, sourceChain: from, destinationChain: to, token, amount, now });
  return initiateBridgeTransfer({
    userId: x.userId,
    environment: x.environment,
    quoteId: q.id,
    accountId: x.accountId,
    senderAddress: custodyAddress(x.accountId, from),
    recipientAddress: custodyAddress(x.accountId, to),
    slippageTolerance: x.slippageBps / 10_000,
    now,
  });
}

/** Step 1: the outbound bridge (idempotent: a recorded transfer is returned). */
export async function startOutboundBridge(id: string, nowMs: number): Promise<ChildStart> {
  const x = (await getCrosschainSwap(id))!;
  if (x.bridgeTransferId) return bridgeChild((await getBridgeTransfer(x.bridgeTransferId))!);
  const t = await bridge(x, x.sourceChain, x.destinationChain, x.fromToken, x.amount, new Date(nowMs));
  await withTransaction((c) => update(c, id, { status: 'bridging', bridge_transfer_id: t.id }));
  return bridgeChild(t);
}

/**
 * Step 2: after the bridge delivered, quote the swap on the destination chain for what arrived
 * and record the swap (pending); the workflow runs it as a child. A swap that cannot even be
 * quoted any more is a failure of the second leg (compensated like any other).
 */
export async function prepareSwapLeg(id: string, nowMs: number, sandboxOutcome: SandboxOutcome | null): Promise<{ ok: true; child: ChildStart } | { ok: false; code: string; reason: string }> {
  const x = (await getCrosschainSwap(id))!;
  const t = (await getBridgeTransfer(x.bridgeTransferId!))!;
  const received = t.receiveAmount;
  const child = (s: { id: string; workflowId: string; accountId: string; assetIn: string; amountIn: string; environment: Environment; userId: string; chain: string }): ChildStart => ({
    recordId: s.id,
    workflowId: s.workflowId,
    accountId: s.accountId,
    assetCode: s.assetIn,
    amount: s.amountIn,
    environment: s.environment,
    userId: s.userId,
    chain: s.chain,
  });
  if (x.swapId) return { ok: true, child: child((await getSwap(x.swapId))!) };
  const now = new Date(nowMs);
  let quoteId: string;
  try {
    const q = await createSwapQuote({
      userId: x.userId,
      environment: x.environment,
      chain: x.destinationChain,
      tokenIn: t.destinationToken,
      tokenOut: x.toToken,
      amountIn: new D(received).toFixed(),
      slippageBps: x.slippageBps,
      now,
    });
    quoteId = q.id;
  } catch (err) {
    if (err instanceof DomainError) return { ok: false, code: err.code, reason: `the swap on ${x.destinationChain} could not be quoted: ${err.message}` };
    throw err;
  }
  const s = await withTransaction(async (c) => {
    const locked = await lock(c, id);
    if (locked.swapId) return (await getSwap(locked.swapId, {}, c))!;
    const swap = await createSwap(
      {
        userId: x.userId,
        environment: x.environment,
        quoteId,
        walletAddress: custodyAddress(x.accountId, x.destinationChain),
        deadlineMinutes: 20,
        accountId: x.accountId,
        sandboxOutcome,
        crosschainSwapId: x.id,
        now,
      },
      c,
    );
    await update(c, id, { status: 'swapping', swap_id: swap.id, bridged_amount: received });
    return swap;
  });
  return { ok: true, child: child(s) };
}

/** Compensation, step 1: bridge what arrived back to the source chain. */
export async function startReturnBridge(id: string, nowMs: number): Promise<ChildStart> {
  const x = (await getCrosschainSwap(id))!;
  if (x.returnBridgeTransferId) return bridgeChild((await getBridgeTransfer(x.returnBridgeTransferId))!);
  const out = (await getBridgeTransfer(x.bridgeTransferId!))!;
  const t = await bridge(x, x.destinationChain, x.sourceChain, out.destinationToken, new D(out.receiveAmount).toFixed(), new Date(nowMs));
  await withTransaction((c) => update(c, id, { status: 'returning', return_bridge_transfer_id: t.id, bridged_amount: out.receiveAmount }));
  return bridgeChild(t);
}

/**
 * Compensation, step 2: the funds are back on the source chain less two bridge fees; refund
 * those from fee revenue so the source book holds exactly the original amount again.
 */
export async function refundBridgeFees(id: string, workflowId: string): Promise<string> {
  const x = (await getCrosschainSwap(id))!;
  const back = (await getBridgeTransfer(x.returnBridgeTransferId!))!;
  const shortfall = new D(x.amount).minus(back.receiveAmount);
  await withTransaction(async (c) => {
    await update(c, id, { returned_amount: back.receiveAmount });
    if (shortfall.lte(0)) return;
    const book = await ensureChainLedgerAccount(c, x.accountId, back.assetCode, x.sourceChain);
    const fees = await systemAccount(x.environment, back.assetCode, 'fee_revenue', x.id, c);
    await postEntry(
      {
        environment: x.environment,
        idempotencyKey: workflowIdempotencyKey(workflowId, 'refund-bridge-fees'),
        type: 'fee',
        description: `Refund of the bridge fees of cross-chain swap ${x.id} (its swap failed; the tokens were bridged back)`,
        lines: [
          { accountId: fees, direction: 'debit', amount: shortfall.toFixed() },
          { accountId: book, direction: 'credit', amount: shortfall.toFixed() },
        ],
        userId: x.userId,
        metadata: { crosschain_swap_id: x.id, bridge_transfer_id: x.bridgeTransferId, return_bridge_transfer_id: back.id },
      },
      c,
    );
  });
  return shortfall.toFixed();
}

export type CrosschainOutcome = { status: 'completed' } | { status: 'failed'; code: string; reason: string; compensated: boolean };

export async function finishCrosschainSwap(id: string, outcome: CrosschainOutcome): Promise<void> {
  await withTransaction(async (c) => {
    const x = await lock(c, id);
    if (x.status === 'completed' || x.status === 'failed') return;
    if (outcome.status === 'completed') {
      // What reached the customer's book: the swap's output less its network fee.
      const s = (await getSwap(x.swapId!, {}, c))!;
      const received = new D(s.actualOutput!).minus(s.networkFee!).toFixed();
      await update(c, id, { status: 'completed', output_amount: received, completed_at: 'now' });
    } else {
      await update(c, id, { status: 'failed', failure_code: outcome.code, failure_reason: outcome.reason, compensation_executed: outcome.compensated, failed_at: 'now' });
    }
  });
}

export interface CrosschainSwapLegs {
  bridge: BridgeTransfer | null;
  swap: Swap | null;
  returnBridge: BridgeTransfer | null;
}

/** The record's legs as they are now (the outbound bridge, the swap, the return bridge when compensated). */
export async function crosschainSwapLegs(x: CrosschainSwap): Promise<CrosschainSwapLegs> {
  const [bridge, swap, returnBridge] = await Promise.all([
    x.bridgeTransferId ? getBridgeTransfer(x.bridgeTransferId) : null,
    x.swapId ? getSwap(x.swapId) : null,
    x.returnBridgeTransferId ? getBridgeTransfer(x.returnBridgeTransferId) : null,
  ]);
  return { bridge, swap, returnBridge };
}
