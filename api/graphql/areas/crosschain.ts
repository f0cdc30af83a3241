/**
 * Cross-chain over GraphQL (docs/crosschain.md): bridge quotes, initiation, the one-call bridge,
 * fees per protocol, a transfer with its history, the cross-chain portfolio and cross-chain swaps.
 * Each resolver checks the input against the REST route's schema, makes the one domain call its
 * REST route makes (api/routes/crosschain) and shows the REST presenter's answer in camelCase.
 */
import type { FastifyInstance } from 'fastify';
import { bridgeFees, bridgeTransferWithHistory, crosschainPortfolio } from '../../../domain/crosschain';
import { findCrosschainSwap } from '../../../domain/defi/operations';
import { bridgeInOneCall, quoteBridge, startBridge, swapAcrossChains, type BridgeNowBody, type CrosschainSwapBody, type InitiateBody, type QuoteBody } from '../../operations/crosschain/requests';
import { presentBridgeFees, presentBridgeQuote, presentBridgeTransfer, presentBridgeWithHistory, presentCrosschainPortfolio, presentCrosschainSwap } from '../../operations/crosschain/presenters';
import { bridgeFeesSchema, bridgeInitiateSchema, bridgeNowSchema, bridgeQuoteSchema, crosschainSwapCreateSchema, TAG } from '../../operations/crosschain/schemas';
import { as, type GqlContext } from '../context';
import { camelize, restInput } from '../rest';
import type { GraphQLArea } from './types';

const typeDefs = /* GraphQL */ `
  "A bridge quote (spec: Bridge quote): the chosen protocol's price, the others as alternatives."
  type BridgeQuote {
    quoteId: ID!
    "wormhole, layerzero or axelar."
    bridgeProtocol: String!
    sourceChain: String!
    destinationChain: String!
    token: String!
    destinationToken: String!
    assetCode: String!
    inputAmount: Decimal!
    estimatedReceiveAmount: Decimal!
    feeAmount: Decimal!
    "The token the fee is paid in (the bridged token)."
    feeCurrency: String!
    "protocol_fee, route_fee, route_fee_usd, rounding, protocol_fee_bps (as on REST)."
    feeBreakdown: JSON!
    exchangeRate: Decimal!
    estimatedDurationSeconds: Int!
    quoteExpiresAt: DateTime!
    alternativeQuotes: [BridgeAlternativeQuote!]!
    createdAt: DateTime!
  }

  type BridgeAlternativeQuote {
    bridgeProtocol: String!
    estimatedReceiveAmount: Decimal!
    feeAmount: Decimal!
    estimatedDurationSeconds: Int!
  }

  "Why an operation failed (null while it has not)."
  type DefiFailure {
    code: String!
    reason: String!
  }

  "A bridge transfer (spec: Bridge transfer) plus what the platform adds."
  type BridgeTransfer {
    bridgeTxId: ID!
    quoteId: ID!
    "pending, reserved, source_submitted, source_finalized, attested, destination_submitted, completed or failed."
    status: String!
    sourceChain: String!
    destinationChain: String!
    token: String!
    bridgeProtocol: String!
    sourceTxHash: String
    destinationTxHash: String
    senderAddress: String!
    recipientAddress: String!
    amount: Decimal!
    createdAt: DateTime!
    estimatedCompletionAt: DateTime!
    accountId: ID!
    assetCode: String!
    destinationToken: String!
    feeAmount: Decimal!
    feeCurrency: String!
    estimatedReceiveAmount: Decimal!
    minReceiveAmount: Decimal!
    slippageTolerance: String!
    deadlineAt: DateTime!
    workflowId: String!
    sourceTxKind: String
    destinationTxKind: String
    "The protocol's attestation (VAA, DVN or gateway approval) as recorded."
    attestation: JSON
    failure: DefiFailure
    "voided or reversed when the source leg was undone."
    compensation: String
    recoveryRequired: Boolean!
    completedAt: DateTime
    failedAt: DateTime
    "Status changes, oldest first (the bridgeTransfer query only)."
    history: [BridgeHistoryItem!]
    "The quote the one-call bridge made (the bridge mutation only)."
    quote: BridgeQuote
  }

  type BridgeHistoryItem {
    status: String!
    "What the step recorded (free-form, as on REST)."
    detail: JSON
    occurredAt: DateTime!
  }

  type BridgeFees {
    sourceChain: String!
    destinationChain: String!
    token: String!
    assetCode: String!
    amount: Decimal!
    "The protocol a quote would choose (null when none carries the amount)."
    recommended: String
    protocols: [BridgeProtocolFee!]!
  }

  type BridgeProtocolFee {
    protocol: String!
    supported: Boolean!
    "Why the protocol cannot carry this route or amount."
    reason: String
    feeAmount: Decimal
    feeCurrency: String!
    feeBreakdown: JSON
    estimatedReceiveAmount: Decimal
    estimatedDurationSeconds: Int
    minAmount: Decimal
    maxAmount: Decimal
    sourceMechanism: String
    destinationMechanism: String
    attestation: String
  }

  "Holdings per chain from the ledger (every chain book of the caller's accounts) and bridges in flight."
  type CrosschainPortfolio {
    totalUsd: Decimal!
    chains: [CrosschainChain!]!
    assets: [CrosschainAsset!]!
    inFlight: [BridgeTransfer!]!
  }

  type CrosschainChain {
    chain: String!
    name: String!
    caip2: String!
    totalUsd: Decimal!
    holdings: [CrosschainHolding!]!
  }

  type CrosschainHolding {
    accountId: ID!
    assetCode: String!
    token: String!
    tokenAddress: String
    "The account's custody address on the chain."
    address: String!
    availableBalance: Decimal!
    reservedBalance: Decimal!
    totalBalance: Decimal!
    usdValue: Decimal!
  }

  type CrosschainAsset {
    assetCode: String!
    totalBalance: Decimal!
    usdValue: Decimal!
    chains: [String!]!
  }

  "Bridge then swap as one operation, with its legs as they are now."
  type CrosschainSwap {
    crosschainSwapId: ID!
    status: String!
    sourceChain: String!
    destinationChain: String!
    fromToken: String!
    toToken: String!
    amount: Decimal!
    slippageBps: Int!
    accountId: ID!
    workflowId: String!
    bridgedAmount: Decimal
    outputAmount: Decimal
    returnedAmount: Decimal
    bridge: BridgeTransfer
    swap: DefiSwap
    "The bridge back when the swap failed after the bridge (compensation)."
    returnBridge: BridgeTransfer
    failure: DefiFailure
    compensationExecuted: Boolean!
    createdAt: DateTime!
    completedAt: DateTime
    failedAt: DateTime
  }

  input BridgeQuoteInput {
    sourceChain: String!
    destinationChain: String!
    token: String!
    amount: Decimal!
    "wormhole, layerzero or axelar (default: the offer that delivers most)."
    preferredBridge: String
  }

  input InitiateBridgeInput {
    quoteId: ID!
    senderAddress: String!
    recipientAddress: String!
    "A fraction, 0 to 0.5 (default 0.005)."
    slippageTolerance: Float
    deadlineMinutes: Int
    "The account whose source-chain book pays (default: the oldest holding the amount there)."
    accountId: ID
  }

  input BridgeInput {
    sourceChain: String!
    destinationChain: String!
    token: String!
    amount: Decimal!
    protocol: String!
    accountId: ID
    senderAddress: String
    recipientAddress: String
    "0 to 5000 (default 50)."
    slippageBps: Int
    deadlineMinutes: Int
  }

  input CrosschainSwapInput {
    sourceChain: String!
    destinationChain: String!
    fromToken: String!
    toToken: String!
    amount: Decimal!
    "0 to 5000 (default 50)."
    slippageBps: Int
    accountId: ID
    "Sandbox keys: revert or drop the swap leg's transaction."
    sandboxOutcome: String
  }

  extend type Query {
    "A bridge transfer of the caller with its status history."
    bridgeTransfer(id: ID!): BridgeTransfer!
    "Fees and estimated times per protocol for a route and amount."
    bridgeFees(from: String!, to: String!, token: String!, amount: Decimal!): BridgeFees!
    crosschainPortfolio(accountId: ID): CrosschainPortfolio!
    crosschainSwap(id: ID!): CrosschainSwap!
  }

  extend type Mutation {
    "Quotes a bridge transfer (held until quoteExpiresAt)."
    createBridgeQuote(input: BridgeQuoteInput!): BridgeQuote!
    "Spends a quote once and starts the bridge workflow (the transfer as pending)."
    initiateBridge(input: InitiateBridgeInput!): BridgeTransfer!
    "Quotes with the named protocol and initiates at once; the transfer carries its quote."
    bridge(input: BridgeInput!): BridgeTransfer!
    startCrosschainSwap(input: CrosschainSwapInput!): CrosschainSwap!
  }
`;

/** Free-form objects shown as REST shows them. */
const RAW = ['fee_breakdown', 'attestation', 'detail'];
const show = <T>(presented: unknown) => camelize<T>(presented, RAW);

type Input = { input: Record<string, unknown> };

export function crosschainArea(_app: FastifyInstance): GraphQLArea {
  return {
    typeDefs,
    resolvers: {
      Query: {
        bridgeTransfer: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return show(presentBridgeWithHistory(await bridgeTransferWithHistory(args.id, c)));
        },
        bridgeFees: async (_: unknown, args: { from: string; to: string; token: string; amount: string }, ctx: GqlContext) => {
          await as(ctx, { tag: TAG });
          const q = restInput<{ from: string; to: string; token: string; amount: string }>(bridgeFeesSchema.querystring, args, 'querystring');
          return show(presentBridgeFees(await bridgeFees(q)));
        },
        crosschainPortfolio: async (_: unknown, args: { accountId?: string | null }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return show(presentCrosschainPortfolio(await crosschainPortfolio({ userId: c.userId, environment: c.environment, accountId: args.accountId ?? undefined })));
        },
        crosschainSwap: async (_: unknown, args: { id: string }, ctx: GqlContext) => {
          const c = await as(ctx, { tag: TAG });
          return show(presentCrosschainSwap(await findCrosschainSwap(args.id, c)));
        },
      },
      Mutation: {
        createBridgeQuote: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const q = await quoteBridge(c, restInput<QuoteBody>(bridgeQuoteSchema.body, input));
          return show(presentBridgeQuote(q));
        },
        initiateBridge: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const t = await startBridge(c, restInput<InitiateBody>(bridgeInitiateSchema.body, input));
          return show(presentBridgeTransfer(t));
        },
        bridge: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const { quote, transfer } = await bridgeInOneCall(c, restInput<BridgeNowBody>(bridgeNowSchema.body, input));
          return show({ ...presentBridgeTransfer(transfer), quote: presentBridgeQuote(quote) });
        },
        startCrosschainSwap: async (_: unknown, { input }: Input, ctx: GqlContext) => {
          const c = await as(ctx, { permission: 'write', tag: TAG });
          const x = await swapAcrossChains(c, restInput<CrosschainSwapBody>(crosschainSwapCreateSchema.body, input));
          return show(presentCrosschainSwap(x));
        },
      },
    },
  };
}
