/**
 * SDL of microfinance (./microfinance.ts): joint-liability groups, loan products, group loans and
 * their repayments, IFRS 9 provisioning (teller cash: ./microfinance-teller-schema.ts). Fields mirror
 * the REST answers (api/routes/microfinance/*-schemas.ts) in camelCase; dates without a time are
 * YYYY-MM-DD strings.
 */
import { PAGE_ARGS, paginatorOf } from '../pagination';

export const microfinanceTypeDefs = /* GraphQL */ `
  type MicrofinanceGroupMember {
    userId: ID!
    "The member's account: loans are disbursed into it and repaid from it. Null while invited, and shown only to operators and to that member."
    accountId: ID
    "leader or member."
    role: String!
    "invited, accepted or declined: a member is liable for the others only once accepted."
    status: String!
    joinedAt: DateTime!
    respondedAt: DateTime
  }

  "A joint-liability group: its members guarantee each other's loans (arrears are covered by members, then the guarantee fund)."
  type MicrofinanceGroup {
    id: ID!
    name: String!
    "joint."
    liabilityType: String!
    "pending, active or closed."
    status: String!
    "The group's guarantee fund account (savings, held by the leader; frozen for life: it moves only by the group's loan rules)."
    guaranteeAccountId: ID
    createdBy: ID!
    members: [MicrofinanceGroupMember!]!
    createdAt: DateTime!
    activatedAt: DateTime
    closedAt: DateTime
  }

  type LoanProduct {
    id: ID!
    name: String!
    currency: String!
    principalMin: Decimal!
    principalMax: Decimal!
    "Nominal annual rate: \\"0.12\\" is 12 %."
    annualInterestRate: String!
    "flat or declining_balance."
    interestMethod: String!
    termInstalments: Int!
    "weekly, biweekly or monthly."
    repaymentFrequency: String!
    graceInstalments: Int!
    arrearsToleranceDays: Int!
    disbursementFee: Decimal!
    "active or retired."
    status: String!
    createdAt: DateTime!
  }

  "A group member's loan (the product's terms are copied onto it)."
  type GroupLoan {
    id: ID!
    groupId: ID!
    "The borrower."
    userId: ID!
    "The borrower's account: shown only to the borrower and operators (null for other members)."
    accountId: ID
    productId: ID!
    currency: String!
    principal: Decimal!
    annualInterestRate: String!
    interestMethod: String!
    termInstalments: Int!
    repaymentFrequency: String!
    graceInstalments: Int!
    arrearsToleranceDays: Int!
    "applied, approved, active, closed, written_off or rejected."
    status: String!
    disbursementEntryId: ID
    writeOffEntryId: ID
    "YYYY-MM-DD: the schedule runs from this day."
    disbursedOn: String
    approvedBy: ID
    createdAt: DateTime!
    approvedAt: DateTime
    disbursedAt: DateTime
    closedAt: DateTime
    writtenOffAt: DateTime
  }

  type GroupLoanInstalment {
    number: Int!
    "YYYY-MM-DD."
    dueDate: String!
    principalDue: Decimal!
    interestDue: Decimal!
    "Late fees charged on the instalment."
    feeDue: Decimal!
    totalDue: Decimal!
    principalPaid: Decimal!
    interestPaid: Decimal!
    feePaid: Decimal!
    totalPaid: Decimal!
    "YYYY-MM-DD when fully paid."
    paidOn: String
  }

  type GroupLoanRepayment {
    id: ID!
    amount: Decimal!
    "borrower, group_member or guarantee_fund (joint liability)."
    source: String!
    "Shown only to operators and to the owner of the paying account (null for others)."
    payerAccountId: ID
    entryId: ID!
    "How the amount went to fees, interest and principal, instalment by instalment."
    allocation: JSON!
    "YYYY-MM-DD."
    paidOn: String!
    createdAt: DateTime!
  }

  type GroupLoanTotals {
    paid: Decimal!
    principalPaid: Decimal!
    interestPaid: Decimal!
    feesPaid: Decimal!
    outstandingPrincipal: Decimal!
    outstandingInterest: Decimal!
    outstandingFees: Decimal!
    "What is due and unpaid now."
    arrears: Decimal!
  }

  "A loan with its schedule, repayments, totals and days past due (GET /loans/{id} on REST)."
  type GroupLoanView {
    loan: GroupLoan!
    schedule: [GroupLoanInstalment!]!
    repayments: [GroupLoanRepayment!]!
    totals: GroupLoanTotals!
    daysPastDue: Int!
  }

  "A loan's IFRS 9 provision, computed now: ECL = PD × LGD × EAD."
  type LoanProvision {
    loanId: ID!
    currency: String!
    "1 (≤ 30 days past due), 2 (> 30) or 3 (> 90)."
    stage: Int!
    daysPastDue: Int!
    "Exposure at default: outstanding principal + accrued interest."
    ead: Decimal!
    pd: String!
    lgd: String!
    ecl: Decimal!
    policyVersion: Int!
    "YYYY-MM-DD."
    asOf: String!
  }

  type ProvisionPolicyStage {
    stage: Int!
    "Probability of default in [0, 1]."
    pd: String!
    "Loss given default in [0, 1]."
    lgd: String!
    description: String
  }

  "A provisioning policy version: PD and LGD per stage."
  type ProvisionPolicy {
    version: Int!
    "YYYY-MM-DD: the first run date it applies to."
    effectiveFrom: String!
    stages: [ProvisionPolicyStage!]!
    createdBy: ID
    createdAt: DateTime!
  }

  "One currency's provisioning run on a run date."
  type ProvisioningRun {
    id: ID!
    currency: String!
    "YYYY-MM-DD."
    runDate: String!
    policyVersion: Int!
    loans: Int!
    totalEcl: Decimal!
    allowanceBefore: Decimal!
    allowanceAfter: Decimal!
    "allowanceAfter − allowanceBefore; negative for a release."
    change: String!
    entryId: ID
    createdAt: DateTime!
  }

  "Loan portfolio quality of one currency."
  type LoanPortfolio {
    currency: String!
    "YYYY-MM-DD."
    asOf: String!
    activeLoans: Int!
    "Outstanding principal of active loans."
    grossPortfolio: Decimal!
    "Outstanding principal of loans > 30 days past due ÷ gross portfolio."
    par30: String!
    "Outstanding principal of loans > 90 days past due ÷ gross portfolio."
    par90: String!
    par30Amount: Decimal!
    par90Amount: Decimal!
    "YYYY-MM-DD of the latest provisioning run; null before the first."
    provisionedOn: String
    "The loan-loss allowance account's ledger balance."
    allowanceBalance: Decimal!
    "Allowance booked by the latest run per stage: { \\"1\\": amount, \\"2\\": amount, \\"3\\": amount }."
    allowanceByStage: JSON!
    "Loans per stage at the latest run: { \\"1\\": n, \\"2\\": n, \\"3\\": n }."
    loansByStage: JSON!
  }

  ${paginatorOf('MicrofinanceGroup')}
  ${paginatorOf('LoanProduct')}
  ${paginatorOf('GroupLoan')}
  ${paginatorOf('GroupLoanInstalment')}
  ${paginatorOf('ProvisionPolicy')}
  ${paginatorOf('ProvisioningRun')}
  ${paginatorOf('LoanPortfolio')}

  input MicrofinanceGroupMemberInput {
    userId: ID!
    "Default: the member's oldest active account."
    accountId: ID
    "leader or member (default member)."
    role: String
  }

  input CreateMicrofinanceGroupInput {
    name: String!
    "joint (the default)."
    liabilityType: String
    "Users of the caller's tenant; the caller is added as leader."
    members: [MicrofinanceGroupMemberInput!]!
  }

  input LoanProductInput {
    name: String!
    currency: String!
    principalMin: Decimal!
    principalMax: Decimal!
    "\\"0.12\\" is 12 %."
    annualInterestRate: Decimal!
    "flat or declining_balance."
    interestMethod: String!
    termInstalments: Int!
    "weekly, biweekly or monthly."
    repaymentFrequency: String!
    graceInstalments: Int
    arrearsToleranceDays: Int
    disbursementFee: Decimal
  }

  input GroupLoanApplicationInput {
    productId: ID!
    principal: Decimal!
    "The borrowing member (default: the caller); the group leader applies for others."
    userId: ID
  }

  input ProvisionPolicyStageInput {
    stage: Int!
    pd: String!
    lgd: String!
    description: String
  }

  input ProvisionPolicyInput {
    "YYYY-MM-DD: the first run date (UTC) the version applies to."
    effectiveFrom: String!
    "Stages 1, 2 and 3 once each."
    stages: [ProvisionPolicyStageInput!]!
  }

  extend type Query {
    "Groups the caller belongs to (operators: every group)."
    microfinanceGroups(${PAGE_ARGS}): MicrofinanceGroupPaginator!
    "A group (its members and operators)."
    microfinanceGroup(id: ID!): MicrofinanceGroup!
    "Loan products (customers: the active ones)."
    loanProducts(${PAGE_ARGS}): LoanProductPaginator!
    "Loans of a group (members and operators)."
    groupLoans(groupId: ID!, ${PAGE_ARGS}): GroupLoanPaginator!
    "A loan with its schedule, repayments, totals, days past due and arrears (group members and operators)."
    groupLoan(id: ID!): GroupLoanView!
    groupLoanSchedule(loanId: ID!, ${PAGE_ARGS}): GroupLoanInstalmentPaginator!
    "A loan's provision computed now (the borrower, operators); only active loans."
    groupLoanProvision(loanId: ID!): LoanProvision!
    "Operators: policy versions, newest first."
    provisionPolicies(${PAGE_ARGS}): ProvisionPolicyPaginator!
    "Operators: runs of the caller's environment, newest first."
    provisioningRuns(${PAGE_ARGS}, currency: String): ProvisioningRunPaginator!
    "Operators: portfolio quality per currency as of a date (YYYY-MM-DD, default today)."
    loanPortfolioReport(${PAGE_ARGS}, asOf: String): LoanPortfolioPaginator!
  }

  extend type Mutation {
    "Creates a joint-liability group led by the caller; it starts pending, the other members invited."
    createMicrofinanceGroup(input: CreateMicrofinanceGroupInput!): MicrofinanceGroup!
    "The invited caller accepts: liable for the group's loans from now, with one of their accounts (default: their oldest active one)."
    acceptMicrofinanceGroupInvitation(id: ID!, accountId: ID): MicrofinanceGroup!
    "The invited caller declines (final)."
    declineMicrofinanceGroupInvitation(id: ID!): MicrofinanceGroup!
    "Operators: once every invitation is answered."
    activateMicrofinanceGroup(id: ID!): MicrofinanceGroup!
    "Operators: a group with no open loan. Its guarantee fund goes back to the members, pro rata to what each paid in, and is closed."
    closeMicrofinanceGroup(id: ID!): MicrofinanceGroup!
    "Operators."
    createLoanProduct(input: LoanProductInput!): LoanProduct!
    "A member applies for themself, the leader for a member; the group must be active."
    applyForGroupLoan(groupId: ID!, input: GroupLoanApplicationInput!): GroupLoan!
    "Operators: the loan's workflow starts."
    approveGroupLoan(id: ID!): GroupLoan!
    "Operators."
    rejectGroupLoan(id: ID!): GroupLoan!
    "Operators: into the borrower's account; the schedule runs from today."
    disburseGroupLoan(id: ID!): GroupLoan!
    "Operators: the outstanding principal moves to the write-off expense."
    writeOffGroupLoan(id: ID!): GroupLoan!
    "The borrower repays from their account: fees, then interest, then principal, oldest instalment first (send an Idempotency-Key)."
    repayGroupLoan(id: ID!, amount: Decimal!): GroupLoan!
    "Operators: the next policy version."
    createProvisionPolicy(input: ProvisionPolicyInput!): ProvisionPolicy!
    "Operators: provisions every currency of the caller's environment (idempotent per currency and run date; default today)."
    runProvisioning(runDate: String): [ProvisioningRun!]!
  }
`;
