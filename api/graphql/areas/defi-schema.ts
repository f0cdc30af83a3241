/**
 * SDL of the DeFi area (./defi.ts): swaps (quote, execute, status), flash loans, pools and the
 * DeFi portfolio. Fields mirror the REST answers (api/operations/defi/presenters.ts) in camelCase.
 */
export const defiTypeDefs = /* GraphQL */ `
  type DefiSwapRoute {
    dex: String!
    "Token symbols on the chain, the requested tokens at the ends."
    path: [String!]!
    pools: [String!]!
    feeTier: String!
  }

  type DefiSwapAlternativeRoute {
    dex: String!
    estimatedOutput: Decimal!
    priceImpactPercent: String!
    path: [String!]!
    pools: [String!]!
    feeTier: String!
    estimatedGasUsd: Decimal!
  }

  "A swap quote (spec: Swap quote), stored: it can be executed until quoteExpiresAt."
  type DefiSwapQuote {
    quoteId: ID!
    chain: String!
    tokenIn: String!
    tokenOut: String!
    amountIn: Decimal!
    estimatedOutput: Decimal!
    priceImpactPercent: String!
    estimatedGasUsd: Decimal!
    bestRoute: DefiSwapRoute!
    alternativeRoutes: [DefiSwapAlternativeRoute!]!
    "estimatedOutput less the slippage: the least the swap settles for."
    minimumOutput: Decimal!
    slippageBps: Int!
    "The network fee in tokenOut, deducted from the output at settlement."
    networkFee: Decimal!
    gasPriceGwei: String!
    dexSources: [String!]!
    quoteExpiresAt: DateTime!
    createdAt: DateTime!
  }

  "A swap (spec: Swap execution) with its outcome once known."
  type DefiSwap {
    swapId: ID!
    quoteId: ID!
    "pending, submitted, included, completed or failed (execute answers submitted once the transaction is sent)."
    status: String!
    txHash: String
    chain: String!
    tokenIn: String!
    tokenOut: String!
    dex: String!
    amountIn: Decimal!
    expectedOutput: Decimal!
    minimumOutput: Decimal!
    actualOutput: Decimal
    networkFee: Decimal
    "actualOutput less the network fee."
    amountReceived: Decimal
    gasPriceGwei: String
    gasUsed: String
    blockNumber: Float
    route: DefiSwapRoute!
    accountId: ID!
    walletAddress: String!
    maxGasPriceGwei: String
    deadlineAt: DateTime!
    workflowId: String!
    failure: DefiFailure
    compensationExecuted: Boolean!
    createdAt: DateTime!
    completedAt: DateTime
    failedAt: DateTime
    "The quote made for this swap (the quoteAndExecuteDefiSwap mutation only)."
    quote: DefiSwapQuote
  }

  type FlashLoanOperation {
    index: Int!
    type: String!
    dex: String!
    poolId: String!
    from: String!
    to: String!
    amountIn: Decimal!
    amountOut: Decimal!
  }

  "A flash loan: borrowed, used by its operations and repaid with the fee in one atomic step."
  type FlashLoan {
    id: ID!
    status: String!
    chain: String!
    lendingPool: String!
    token: String!
    amount: Decimal!
    fee: Decimal!
    operations: [FlashLoanOperation!]!
    finalAmount: Decimal!
    networkFee: Decimal!
    profit: Decimal!
    accountId: ID!
    entryId: ID!
    workflowId: String!
    createdAt: DateTime!
  }

  type DefiDex {
    dex: String!
    name: String!
    model: String!
  }

  type DefiPoolToken {
    assetCode: String!
    decimals: Int!
    reserve: Decimal!
  }

  type DefiPool {
    id: ID!
    chain: String!
    dex: String!
    "constant_product, stable_swap or weighted."
    kind: String!
    address: String!
    "The swap fee as a percentage, e.g. 0.3%."
    feeTier: String!
    amplification: Int
    weights: [String!]
    tokens: [DefiPoolToken!]!
    swapCount: Int!
    updatedAt: DateTime!
  }

  type DefiLendingPool {
    id: ID!
    chain: String!
    protocol: String!
    assetCode: String!
    liquidity: Decimal!
    flashLoanFee: String!
    loanCount: Int!
  }

  type DefiPools {
    dexes: [DefiDex!]!
    pools: [DefiPool!]!
    lendingPools: [DefiLendingPool!]!
  }

  type DefiChainValue {
    chain: String!
    usdValue: Decimal!
  }

  type DefiHolding {
    accountId: ID!
    chain: String!
    assetCode: String!
    token: String!
    availableBalance: Decimal!
    reservedBalance: Decimal!
    totalBalance: Decimal!
    "To the cent; null when the asset has no USD rate."
    usdValue: Decimal
  }

  type DefiYieldPosition {
    positionId: ID!
    "lending, staking or liquidity."
    positionType: String!
    "lending_supply, staking_rewards or liquidity_fees."
    source: String!
    chain: String!
    protocol: String!
    assetCodes: [String!]!
    amount: Decimal
    annualRate: String
    pendingRewards: Decimal
    usdValue: Decimal
  }

  "Every DeFi holding and position of the caller, valued now."
  type DefiPortfolio {
    totalUsdValue: Decimal!
    chains: [DefiChainValue!]!
    holdings: [DefiHolding!]!
    swaps: [DefiSwap!]!
    flashLoans: [FlashLoan!]!
    lendingPositions: [LendingPosition!]!
    stakingPositions: [StakingPosition!]!
    liquidityPositions: [LiquidityPosition!]!
    yieldPositions: [DefiYieldPosition!]!
    note: String!
  }

  input SwapQuoteInput {
    chain: String!
    tokenIn: String!
    tokenOut: String!
    amountIn: Decimal!
    "A fraction, 0 to 0.5 (default 0.005)."
    slippageTolerance: Float
    dexSources: [String!]
  }

  input ExecuteSwapInput {
    quoteId: ID!
    walletAddress: String!
    maxGasPriceGwei: Float
    deadlineMinutes: Int
    accountId: ID
    "Sandbox keys: revert or drop the transaction."
    sandboxOutcome: String
  }

  input QuoteAndExecuteSwapInput {
    fromToken: String!
    toToken: String!
    amount: Decimal!
    slippageBps: Int
    chain: String
    dexSources: [String!]
    walletAddress: String
    maxGasPriceGwei: Float
    deadlineMinutes: Int
    accountId: ID
    sandboxOutcome: String
  }

  input FlashLoanOperationInput {
    "swap."
    type: String!
    from: String!
    to: String!
    dex: String!
  }

  input FlashLoanInput {
    token: String!
    amount: Decimal!
    operations: [FlashLoanOperationInput!]!
    chain: String
    accountId: ID
  }

  extend type Query {
    "Quotes a swap (stored; chain defaults to ethereum, slippageBps to 50, dexSources to all)."
    defiSwapQuote(from: String!, to: String!, amount: Decimal!, chain: String, slippageBps: Int, dexSources: [String!]): DefiSwapQuote!
    defiSwap(id: ID!): DefiSwap!
    flashLoan(id: ID!): FlashLoan!
    defiPortfolio: DefiPortfolio!
    defiPools(chain: String): DefiPools!
  }

  extend type Mutation {
    "Quotes a swap (the v1 form: slippage as a fraction)."
    createDefiSwapQuote(input: SwapQuoteInput!): DefiSwapQuote!
    "Executes a quote; answers once the transaction is submitted."
    executeDefiSwap(input: ExecuteSwapInput!): DefiSwap!
    "Quotes and executes at once; the swap carries its quote."
    quoteAndExecuteDefiSwap(input: QuoteAndExecuteSwapInput!): DefiSwap!
    "Borrows, runs the operations and repays in one step; a failed step refuses the whole loan (the step in the pointer)."
    flashLoan(input: FlashLoanInput!): FlashLoan!
  }
`;
