/**
 * Each cross-chain write as its REST body reaches the domain: one mapping, used by the REST routes
 * (./index.ts, ./swap.ts) and by GraphQL (api/graphql/areas/crosschain.ts, after checking its input
 * against the same body schema).
 */
import { bridgeNow, createBridgeQuote, initiateBridge } from '../../../domain/crosschain';
import { startCrosschainSwap } from '../../../domain/defi/operations';
import type { SandboxOutcome } from '../../../domain/defi/swaps';
import type { Environment } from '../../../domain/platform/environment';

type Who = { userId: string; environment: Environment };

export type QuoteBody = { source_chain: string; destination_chain: string; token: string; amount: string; preferred_bridge?: string };
export type InitiateBody = { quote_id: string; sender_address: string; recipient_address: string; slippage_tolerance?: number; deadline_minutes?: number; account_id?: string };
export type BridgeNowBody = {
  source_chain: string;
  destination_chain: string;
  token: string;
  amount: string;
  protocol: string;
  account_id?: string;
  sender_address?: string;
  recipient_address?: string;
  slippage_bps?: number;
  deadline_minutes?: number;
};
export type CrosschainSwapBody = { source_chain: string; destination_chain: string; from_token: string; to_token: string; amount: string; slippage_bps?: number; account_id?: string; sandbox_outcome?: SandboxOutcome };

export const quoteBridge = (who: Who, b: QuoteBody) =>
  createBridgeQuote({ ...who, sourceChain: b.source_chain, destinationChain: b.destination_chain, token: b.token, amount: b.amount, protocol: b.preferred_bridge, protocolPointer: '/preferred_bridge', now: new Date() });

export const startBridge = (who: Who, b: InitiateBody) =>
  initiateBridge({
    ...who,
    quoteId: b.quote_id,
    accountId: b.account_id,
    senderAddress: b.sender_address,
    recipientAddress: b.recipient_address,
    slippageTolerance: b.slippage_tolerance,
    deadlineMinutes: b.deadline_minutes,
    now: new Date(),
  });

export const bridgeInOneCall = (who: Who, b: BridgeNowBody) =>
  bridgeNow({
    ...who,
    sourceChain: b.source_chain,
    destinationChain: b.destination_chain,
    token: b.token,
    amount: b.amount,
    protocol: b.protocol,
    protocolPointer: '/protocol',
    accountId: b.account_id,
    senderAddress: b.sender_address,
    recipientAddress: b.recipient_address,
    slippageBps: b.slippage_bps,
    deadlineMinutes: b.deadline_minutes,
    now: new Date(),
  });

export const swapAcrossChains = (who: Who, b: CrosschainSwapBody) =>
  startCrosschainSwap({
    ...who,
    sourceChain: b.source_chain,
    destinationChain: b.destination_chain,
    fromToken: b.from_token,
    toToken: b.to_token,
    amount: b.amount,
    slippageBps: b.slippage_bps ?? 50,
    accountId: b.account_id,
    sandboxOutcome: b.sandbox_outcome,
    now: new Date(),
  });
