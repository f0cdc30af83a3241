/**
 * SDL of teller cash (./microfinance-teller.ts): offices and vaults, cashier sessions with their tills,
 * counter transactions. Fields mirror the REST answers (api/operations/microfinance/teller-schemas.ts) in camelCase.
 */
import { PAGE_ARGS, paginatorOf } from '../pagination';

export const tellerTypeDefs = /* GraphQL */ `
  "An office's vault of one currency (an internal ledger account)."
  type TellerVault {
    currency: String!
    ledgerAccountId: ID!
    balance: Decimal!
  }

  "An office (branch) with its vaults."
  type TellerOffice {
    id: ID!
    name: String!
    externalId: String
    parentId: ID
    "Margin off the mid rate on currency exchanges."
    fxSpread: String!
    vaults: [TellerVault!]!
    createdAt: DateTime!
  }

  type TellerOfficeStaff {
    id: ID!
    officeId: ID!
    userId: ID!
    "teller or supervisor."
    role: String!
    createdAt: DateTime!
  }

  type TellerVaultFunding {
    office: TellerOffice!
    entryId: ID!
  }

  "A session's drawer of one currency."
  type TellerTill {
    currency: String!
    ledgerAccountId: ID!
    "The float taken from the vault."
    allocated: Decimal!
    "The till's ledger balance now."
    balance: Decimal!
    "What the till should hold at the count."
    expected: Decimal
    counted: Decimal
    "counted − expected: positive over, negative short."
    variance: String
  }

  "A cashier session."
  type TellerSession {
    id: ID!
    officeId: ID!
    tellerUserId: ID!
    "open, variance_pending or closed."
    status: String!
    tills: [TellerTill!]!
    openEntryId: ID
    closeEntryId: ID
    varianceEntryId: ID
    varianceApprovedBy: ID
    openedAt: DateTime!
    countedAt: DateTime
    closedAt: DateTime
  }

  "A counter transaction: a cash deposit, cash withdrawal or currency exchange."
  type TellerTransaction {
    id: ID!
    sessionId: ID!
    officeId: ID!
    tellerUserId: ID!
    "cash_deposit, cash_withdrawal or currency_exchange."
    type: String!
    accountId: ID
    currency: String!
    amount: Decimal!
    toCurrency: String
    toAmount: Decimal
    midRate: String
    spread: String
    appliedRate: String
    rateAsOf: DateTime
    entryId: ID!
    createdAt: DateTime!
  }

  ${paginatorOf('TellerOffice')}
  ${paginatorOf('TellerSession')}
  ${paginatorOf('TellerTransaction')}

  input TellerOfficeInput {
    name: String!
    externalId: String
    parentId: ID
    "Margin off the mid rate (default \\"0.01\\" = 1 %)."
    fxSpread: String
  }

  input TellerCashInput {
    currency: String!
    amount: Decimal!
  }

  input OpenTellerSessionInput {
    officeId: ID!
    "The float per currency, taken from the office vault."
    allocations: [TellerCashInput!]!
  }

  input TellerTransactionInput {
    sessionId: ID!
    "cash_deposit, cash_withdrawal or currency_exchange."
    type: String!
    "The customer's account (optional for a currency exchange)."
    accountId: ID
    amount: Decimal!
    currency: String!
    "currency_exchange: the currency handed out."
    toCurrency: String
  }

  extend type Query {
    "Offices with their vault balances (operators: all; staff: their offices)."
    tellerOffices(${PAGE_ARGS}): TellerOfficePaginator!
    "The caller's sessions and those of offices they supervise (operators: all)."
    tellerSessions(${PAGE_ARGS}, officeId: ID, status: String): TellerSessionPaginator!
    tellerSession(id: ID!): TellerSession!
    "A session's counter transactions (its teller, a supervisor of its office, operators)."
    tellerTransactions(sessionId: ID!, ${PAGE_ARGS}): TellerTransactionPaginator!
  }

  extend type Mutation {
    "Operators."
    createTellerOffice(input: TellerOfficeInput!): TellerOffice!
    "Operators: teller (default) or supervisor."
    assignOfficeStaff(officeId: ID!, userId: ID!, role: String): TellerOfficeStaff!
    "Operators: physical cash arriving in the vault (keyed by the Idempotency-Key)."
    fundOfficeVault(officeId: ID!, currency: String!, amount: Decimal!): TellerVaultFunding!
    "Tellers: a session with a float from the office vault."
    openTellerSession(input: OpenTellerSessionInput!): TellerSession!
    "The session's teller, with the cash counted (amounts may be \\"0\\")."
    closeTellerSession(id: ID!, counted: [TellerCashInput!]!): TellerSession!
    "A supervisor of the office (not the session's teller)."
    approveTellerVariance(id: ID!): TellerSession!
    "Tellers, within their open session (keyed by the Idempotency-Key)."
    createTellerTransaction(input: TellerTransactionInput!): TellerTransaction!
  }
`;
