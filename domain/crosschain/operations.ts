/**
 * The cross-chain bridge operations as every transport calls them (REST today; GraphQL or MCP
 * would call the same): one function per operation, taking the caller's user and environment.
 * An operation that starts a workflow records first, then starts it; when Temporal refuses, the
 * record fails with nothing moved (./workflow.ts) and the caller gets WORKFLOW_UNAVAILABLE.
 */
import type { Environment } from '../platform/environment';
import { DomainError } from '../platform/errors';
import { compareProtocols, resolveRoute, type BridgeProtocolId, type BridgeRoute, type ProtocolFeeRow } from './bridges';
import { initiateBridgeTransfer, type InitiateInput } from './initiate';
import { createBridgeQuote, type BridgeQuote } from './quotes';
import { bridgeHistory, getBridgeTransfer, type BridgeTransfer } from './transfers';
import { startBridgeWorkflow } from './workflow';

export interface Caller {
  userId: string;
  environment: Environment;
}

async function startOrUnavailable(t: BridgeTransfer): Promise<void> {
  await startBridgeWorkflow(t).catch(() => {
    throw new DomainError('WORKFLOW_UNAVAILABLE', 'The bridge transfer could not be started; nothing was moved. Retry with a new quote.');
  });
}

/** Spends a quote, records the transfer as pending and starts its workflow. */
export async function initiateBridge(input: InitiateInput): Promise<BridgeTransfer> {
  const t = await initiateBridgeTransfer(input);
  await startOrUnavailable(t);
  return t;
}

export interface BridgeNowInput extends Caller {
  sourceChain: unknown;
  destinationChain: unknown;
  token: unknown;
  amount: unknown;
  protocol: unknown;
  /** Where the protocol was named in the request (for the refusal's pointer). */
  protocolPointer: string;
  accountId?: string | null;
  senderAddress?: string | null;
  recipientAddress?: string | null;
  /** Basis points (default 50). */
  slippageBps?: number;
  deadlineMinutes?: number;
  now: Date;
}

/** Quotes with the named protocol and initiates at once (same checks as quote, then initiate). */
export async function bridgeNow(input: BridgeNowInput): Promise<{ quote: BridgeQuote; transfer: BridgeTransfer }> {
  const quote = await createBridgeQuote({
    userId: input.userId,
    environment: input.environment,
    sourceChain: input.sourceChain,
    destinationChain: input.destinationChain,
    token: input.token,
    amount: input.amount,
    protocol: input.protocol,
    protocolPointer: input.protocolPointer,
    now: input.now,
  });
  const transfer = await initiateBridge({
    userId: input.userId,
    environment: input.environment,
    quoteId: quote.id,
    accountId: input.accountId,
    senderAddress: input.senderAddress,
    recipientAddress: input.recipientAddress,
    slippageTolerance: (input.slippageBps ?? 50) / 10_000,
    deadlineMinutes: input.deadlineMinutes,
    now: input.now,
  });
  return { quote, transfer };
}

export type BridgeHistoryItem = Awaited<ReturnType<typeof bridgeHistory>>[number];

/** The caller's transfer with its status history (404 NOT_FOUND for anyone else's). */
export async function bridgeTransferWithHistory(id: string, caller: Caller): Promise<{ transfer: BridgeTransfer; history: BridgeHistoryItem[] }> {
  const transfer = await getBridgeTransfer(id, { userId: caller.userId, environment: caller.environment });
  if (!transfer) throw new DomainError('NOT_FOUND', 'Bridge transfer not found');
  return { transfer, history: await bridgeHistory(transfer.id) };
}

export interface BridgeFees {
  route: BridgeRoute;
  /** The amount at the token's precision. */
  amount: string;
  rows: ProtocolFeeRow[];
  /** The protocol that would be chosen: the first that carries the amount (null when none does). */
  recommended: BridgeProtocolId | null;
}

/** Fees and estimated times of every protocol for a route and amount (request fields from, to, token, amount). */
export async function bridgeFees(input: { from: unknown; to: unknown; token: unknown; amount: unknown }): Promise<BridgeFees> {
  const route = await resolveRoute(input.from, input.to, input.token, { source: '/from', destination: '/to', token: '/token' });
  const comparison = await compareProtocols(route, input.amount);
  return { ...comparison, route, recommended: comparison.rows.find((r) => r.supported)?.protocol ?? null };
}
