/**
 * SDL of baskets, GCU and GCU governance (./gcu.ts). Fields mirror the REST answers
 * (api/operations/baskets/presenters.ts, api/operations/gcu/*-presenters.ts) in camelCase; where REST
 * answers a JSON number (the spec's Basket composition record) the field is a Float.
 */
import { PAGE_ARGS, paginatorOf } from '../pagination';

export const gcuTypeDefs = /* GraphQL */ `
  type BasketComponent {
    assetCode: String!
    "Units of the asset in one basket unit."
    amount: Decimal!
    targetWeight: String!
    "At the latest rates (null when a component has no rate)."
    currentWeight: String
    usdEquivalent: Decimal
  }

  type Basket {
    code: ID!
    name: String!
    description: String
    type: String!
    isPrimary: Boolean!
    precision: Int!
    environment: String!
    version: Int!
    "monthly, quarterly or never."
    rebalanceFrequency: String!
    lastRebalancedAt: DateTime
    outstandingUnits: Decimal!
    valueUsd: Decimal
    components: [BasketComponent!]!
    createdAt: DateTime!
  }

  type BasketOperationComponent {
    assetCode: String!
    amount: Decimal!
  }

  "Units composed from (or decomposed into) their components on an account."
  type BasketOperation {
    id: ID!
    "compose or decompose."
    type: String!
    accountUuid: ID!
    basketCode: String!
    amount: Decimal!
    version: Int!
    components: [BasketOperationComponent!]!
    entryId: ID!
    createdAt: DateTime!
  }

  "GET /api/v2/gcu: the primary basket in brief."
  type GcuInfo {
    code: ID!
    name: String!
    description: String
    environment: String!
    precision: Int!
    version: Int!
    valueUsd: Decimal!
    unitsPerUsd: Decimal!
    outstandingUnits: Decimal!
    componentCount: Int!
    rebalanceFrequency: String!
    lastValuationAt: DateTime
    lastUpdated: DateTime!
  }

  type GcuCompositionItem {
    assetCode: String!
    assetName: String!
    assetType: String!
    amount: Decimal!
    targetWeight: String!
    weight: Float!
    currentPriceUsd: Float!
    valueContributionUsd: Float!
    percentageOfBasket: Float!
    "REST 24h_change."
    change24h: Float
    "REST 7d_change."
    change7d: Float
    rateAsOf: DateTime!
  }

  type GcuRebalancing {
    frequency: String!
    lastRebalanced: DateTime
    nextRebalance: DateTime
    automatic: Boolean!
  }

  "REST 24h_change_usd etc."
  type GcuPerformance {
    change24hUsd: Float
    change24hPercent: Float
    change7dUsd: Float
    change7dPercent: Float
    change30dUsd: Float
    change30dPercent: Float
    asOf: DateTime
  }

  type GcuComposition {
    basketCode: String!
    environment: String!
    version: Int!
    lastUpdated: DateTime!
    totalValueUsd: Float!
    valueUsd: Decimal!
    unitsPerUsd: Decimal!
    composition: [GcuCompositionItem!]!
    rebalancing: GcuRebalancing!
    performance: GcuPerformance!
  }

  type GcuValuePoint {
    timestamp: DateTime!
    periodStart: DateTime!
    periodEnd: DateTime!
    open: Decimal!
    high: Decimal!
    low: Decimal!
    close: Decimal!
    value: Decimal!
    samples: Int!
  }

  "The basket's USD value per interval (OHLC); REST's data and meta in one object."
  type GcuValueHistory {
    points: [GcuValuePoint!]!
    basketCode: String!
    environment: String!
    period: String!
    interval: String!
    aggregation: String!
    from: DateTime
    to: DateTime!
    buckets: Int!
  }

  type GcuBuyFailure {
    code: String!
    reason: String!
    "none, released, …: what was undone."
    compensation: String!
  }

  "A basket buy: quoted, then a workflow reserves, settles or releases."
  type GcuBuy {
    id: ID!
    status: String!
    accountUuid: ID!
    basketCode: String!
    spendAsset: String!
    "Basket units."
    amount: Decimal!
    quotedPrice: Decimal!
    maxPrice: Decimal!
    slippageBps: Int!
    feeBps: Int!
    quotedCost: Decimal!
    quotedFee: Decimal!
    reservedAmount: Decimal
    executionPrice: Decimal
    cost: Decimal
    fee: Decimal
    "cost + fee once settled."
    total: Decimal
    valueUsd: Decimal
    quoteExpiresAt: DateTime!
    workflowId: String
    reservationEntryId: ID
    settlementEntryId: ID
    failure: GcuBuyFailure
    createdAt: DateTime!
    completedAt: DateTime
    failedAt: DateTime
  }

  type GovernanceComponent {
    assetCode: String!
    weight: String!
  }

  type GovernanceTallies {
    for: Decimal!
    against: Decimal!
    abstain: Decimal!
    total: Decimal!
    voters: Int!
  }

  type GovernanceMyVote {
    vote: String!
    power: Decimal!
    castAt: DateTime!
    updatedAt: DateTime!
  }

  type GovernanceProposal {
    id: ID!
    basketCode: String!
    environment: String!
    "operator or monthly."
    source: String!
    period: String
    title: String!
    description: String
    "pending, active, succeeded, defeated, executed, canceled, …"
    status: String!
    proposedComponents: [GovernanceComponent!]!
    votingStartsAt: DateTime!
    votingEndsAt: DateTime!
    snapshotAt: DateTime!
    eligiblePower: Decimal
    quorum: String!
    threshold: String!
    tallies: GovernanceTallies!
    participation: String
    approval: String
    quorumReached: Boolean
    "The caller's vote (null for a guest or without a vote)."
    myVote: GovernanceMyVote
    "The caller's power at the snapshot (null for a guest or before it)."
    myPower: Decimal
    workflowId: String!
    executedAt: DateTime
    revisionVersion: Int
    executionEntryId: ID
    createdBy: String
    createdAt: DateTime!
    openedAt: DateTime
    closedAt: DateTime
    canceledAt: DateTime
    cancelReason: String
  }

  type GovernanceVote {
    proposalId: ID!
    basketCode: String!
    vote: String!
    previousVote: String
    power: Decimal!
    castAt: DateTime!
    updatedAt: DateTime!
    proposalStatus: String!
    tallies: GovernanceTallies!
  }

  type GovernanceVoteSummary {
    proposalId: ID!
    basketCode: String!
    title: String!
    proposalStatus: String!
    vote: String!
    power: Decimal!
    castAt: DateTime!
    updatedAt: DateTime!
    votingEndsAt: DateTime!
  }

  ${paginatorOf('Basket')}
  ${paginatorOf('GovernanceProposal')}
  ${paginatorOf('GovernanceVoteSummary')}

  input WeightedComponentInput {
    assetCode: String!
    weight: String!
  }

  input CreateBasketInput {
    code: String!
    name: String!
    precision: Int
    "monthly (default), quarterly or never."
    rebalanceFrequency: String
    components: [WeightedComponentInput!]!
  }

  input BuyGcuInput {
    accountUuid: ID!
    spendAsset: String!
    "Basket units to buy; or give spendAmount."
    amount: Decimal
    "Most to spend, fee included."
    spendAmount: Decimal
    basketCode: String
    "0 to 1000 (default 50)."
    slippageBps: Int
  }

  input CreateProposalInput {
    basketCode: String
    title: String!
    description: String
    components: [WeightedComponentInput!]!
    "ISO 8601 (default now)."
    votingStartsAt: String
    votingEndsAt: String
  }

  extend type Query {
    "Basket definitions of the caller's environment (production for a guest)."
    baskets(${PAGE_ARGS}): BasketPaginator!
    basket(code: String!): Basket!
    gcu: GcuInfo!
    gcuComposition: GcuComposition!
    "period 24h, 7d, 30d (default), 90d, 1y or all; interval hourly, daily (default), weekly or monthly."
    gcuValueHistory(period: String, interval: String): GcuValueHistory!
    gcuBuy(id: ID!): GcuBuy!
    "active, upcoming or past (default: every proposal)."
    governanceProposals(${PAGE_ARGS}, status: String): GovernanceProposalPaginator!
    governanceProposal(id: ID!): GovernanceProposal!
    "The caller's votes, newest first."
    myGovernanceVotes(${PAGE_ARGS}): GovernanceVoteSummaryPaginator!
  }

  extend type Mutation {
    "Operators: defines a basket in both environments."
    createBasket(input: CreateBasketInput!): Basket!
    composeBasket(accountId: ID!, basketCode: String!, amount: Decimal!): BasketOperation!
    decomposeBasket(accountId: ID!, basketCode: String!, amount: Decimal!): BasketOperation!
    "Quotes and starts a buy (its workflow settles it)."
    buyGcu(input: BuyGcuInput!): GcuBuy!
    "Casts or changes the caller's vote: for, against or abstain."
    castGovernanceVote(proposalId: ID!, vote: String!): GovernanceVote!
    "Operators."
    createGovernanceProposal(input: CreateProposalInput!): GovernanceProposal!
    "Operators."
    cancelGovernanceProposal(id: ID!, reason: String): GovernanceProposal!
    "Operators: executes a succeeded proposal its workflow could not."
    executeGovernanceProposal(id: ID!): GovernanceProposal!
  }
`;
