/**
 * SDL of DeFi positions (./defi-positions.ts): liquidity, lending markets and positions, staking
 * products and positions. Fields mirror the REST answers (api/routes/defi/*-presenters.ts) in camelCase.
 */
import { PAGE_ARGS, paginatorOf } from '../pagination';

export const defiPositionsTypeDefs = /* GraphQL */ `
  type LiquidityValuation {
    "What the shares would take out of the pool now, in the pool's token order."
    amounts: [Decimal!]!
    "What the deposited amounts would be worth held instead."
    holdAmounts: [Decimal!]!
    poolSharePercent: String!
    usdValue: Decimal
    holdUsdValue: Decimal
    impermanentLossUsd: String
    impermanentLossPercent: String
  }

  "A position in a DEX pool (LP shares)."
  type LiquidityPosition {
    positionId: ID!
    positionType: String!
    "open or closed."
    status: String!
    accountId: ID!
    chain: String!
    dex: String!
    poolId: String!
    tokens: [String!]!
    deposited: [Decimal!]!
    withdrawn: [Decimal!]!
    "LP shares held now (18 decimals)."
    shares: Decimal!
    sharesMinted: Decimal!
    openEntryId: ID!
    closeEntryId: ID
    "Null when the position is closed."
    valuation: LiquidityValuation
    createdAt: DateTime!
    closedAt: DateTime
  }

  type LiquidityRemoval {
    position: LiquidityPosition!
    "Paid back to the chain book, in the pool's token order."
    amounts: [Decimal!]!
    sharesBurnt: Decimal!
    entryId: ID!
  }

  type LendingRateModel {
    baseRate: String!
    slope1: String!
    slope2: String!
    optimalUtilization: String!
    reserveFactor: String!
  }

  "A money market with its rates now."
  type LendingMarket {
    id: ID!
    chain: String!
    protocol: String!
    assetCode: String!
    totalSupplied: Decimal!
    totalBorrowed: Decimal!
    availableLiquidity: Decimal!
    utilization: String!
    "Annual rates as fractions."
    supplyRate: String!
    borrowRate: String!
    rateModel: LendingRateModel!
    ltv: String!
    liquidationThreshold: String!
    liquidationBonus: String!
    usdPrice: Decimal
    supplyIndex: String!
    borrowIndex: String!
    accruedAt: DateTime!
  }

  type LendingBalance {
    marketId: ID!
    assetCode: String!
    amount: Decimal!
    usdValue: Decimal!
    rate: String!
  }

  "A lending position (one chain and protocol), valued now."
  type LendingPosition {
    positionId: ID!
    positionType: String!
    status: String!
    accountId: ID!
    chain: String!
    protocol: String!
    supplied: [LendingBalance!]!
    borrowed: [LendingBalance!]!
    collateralUsd: Decimal!
    debtUsd: Decimal!
    borrowingPowerUsd: Decimal!
    liquidationThresholdUsd: Decimal!
    "Null without debt; below 1 the position can be liquidated."
    healthFactor: String
    warningThreshold: String!
    liquidationWarning: Boolean!
    liquidations: Int!
    createdAt: DateTime!
    closedAt: DateTime
    "Newest first (the lendingPosition query only)."
    operations: [LendingOperation!]
  }

  type LendingSeizure {
    marketId: ID!
    assetCode: String!
    amount: Decimal!
    penalty: Decimal!
  }

  type LendingOperation {
    id: ID!
    positionId: ID!
    "supply, withdraw, borrow, repay or liquidation."
    kind: String!
    marketId: ID!
    assetCode: String!
    amount: Decimal!
    seized: LendingSeizure
    healthFactor: String
    entryId: ID!
    createdAt: DateTime!
  }

  type LendingOperationResult {
    operation: LendingOperation!
    position: LendingPosition!
  }

  type StakingProduct {
    id: ID!
    chain: String!
    protocol: String!
    asset: String!
    name: String!
    "Fraction a year."
    annualRate: String!
    epochSeconds: Int!
    unbondingSeconds: Int!
    minimumStake: Decimal!
    active: Boolean!
  }

  type StakingPosition {
    positionId: ID!
    positionType: String!
    "staked, unbonding or withdrawn."
    status: String!
    accountId: ID!
    productId: ID!
    chain: String!
    protocol: String!
    asset: String!
    stakedAmount: Decimal!
    principal: Decimal!
    autoCompound: Boolean!
    annualRate: String
    rewardsHarvested: Decimal!
    harvestedEpochs: Int!
    lastHarvestedAt: DateTime
    rewardEpochs: Int
    pendingEpochs: Int
    pendingRewards: Decimal
    usdValue: Decimal
    nextEpochEndsAt: DateTime
    stakedAt: DateTime!
    unbondRequestedAt: DateTime
    unbondingEndsAt: DateTime
    withdrawnAt: DateTime
    finalRewards: Decimal
    stakeEntryId: ID!
    withdrawEntryId: ID
    workflowId: String
    createdAt: DateTime!
  }

  type StakingHarvest {
    amount: Decimal!
    "paid_out or compounded."
    mode: String!
    epochs: Int!
    fromEpoch: Int!
    toEpoch: Int!
    principal: Decimal!
    entryId: ID!
    harvestedAt: DateTime!
  }

  type StakingHarvestResult {
    position: StakingPosition!
    harvest: StakingHarvest!
  }

  ${paginatorOf('LiquidityPosition')}
  ${paginatorOf('LendingMarket')}
  ${paginatorOf('LendingPosition')}
  ${paginatorOf('StakingProduct')}
  ${paginatorOf('StakingPosition')}

  input AddLiquidityInput {
    poolId: ID!
    accountId: ID
    "The pool's tokens (ledger asset codes) to decimal strings, e.g. { \\"USDC\\": \\"100\\", \\"WETH\\": \\"0.03\\" }."
    amounts: JSON!
  }

  input LendingOperationInput {
    marketId: ID!
    "A decimal string; withdraw and repay also take \\"max\\"."
    amount: String!
    accountId: ID
  }

  input StakeInput {
    productId: ID!
    amount: Decimal!
    accountId: ID
    autoCompound: Boolean
  }

  extend type Query {
    "open (default) or all."
    liquidityPositions(${PAGE_ARGS}, status: String): LiquidityPositionPaginator!
    liquidityPosition(id: ID!): LiquidityPosition!
    lendingMarkets(${PAGE_ARGS}, chain: String): LendingMarketPaginator!
    "open (default) or all."
    lendingPositions(${PAGE_ARGS}, status: String): LendingPositionPaginator!
    lendingPosition(id: ID!): LendingPosition!
    stakingProducts(${PAGE_ARGS}): StakingProductPaginator!
    "active (default) or all."
    stakingPositions(${PAGE_ARGS}, status: String): StakingPositionPaginator!
    stakingPosition(id: ID!): StakingPosition!
  }

  extend type Mutation {
    addLiquidity(input: AddLiquidityInput!): LiquidityPosition!
    "Burns share (in (0, 1], default 1: everything) of the position's LP shares."
    removeLiquidity(positionId: ID!, share: String): LiquidityRemoval!
    lendingSupply(input: LendingOperationInput!): LendingOperationResult!
    lendingWithdraw(input: LendingOperationInput!): LendingOperationResult!
    lendingBorrow(input: LendingOperationInput!): LendingOperationResult!
    lendingRepay(input: LendingOperationInput!): LendingOperationResult!
    stake(input: StakeInput!): StakingPosition!
    "Starts the unbonding; principal and unpaid rewards come back after the product's unbonding period."
    unstake(positionId: ID!): StakingPosition!
    "paid_out (default) or compounded."
    harvestStaking(positionId: ID!, mode: String): StakingHarvestResult!
  }
`;
