/** The SDL of the regtech area (./regtech.ts holds its resolvers). */
import { PAGE_ARGS, paginatorOf } from '../pagination';

export const typeDefs = /* GraphQL */ `
  enum MifidReportType {
    NEWT
    CANC
  }

  type MifidCompetentAuthority {
    country: String!
    name: String!
  }

  "A MiFID II transaction report (RTS 22, ISO 20022 auth.016) of one of the caller's trades."
  type MifidReport {
    id: ID!
    reportType: MifidReportType!
    "draft, validated, submitted, accepted or rejected."
    status: String!
    transactionId: String!
    "basket_buy or defi_swap."
    transactionKind: String!
    transactionReferenceNumber: String!
    isin: String
    jurisdiction: String!
    competentAuthority: MifidCompetentAuthority!
    "True only when the file was validated against ESMA's schemas and passed."
    xsdValidated: Boolean!
    "Why xsdValidated is false (schemas absent, or the first failure)."
    xsdReason: String
    validationIssues: JSON!
    tradeExecutedAt: DateTime!
    "A NEWT's T+1 deadline (end of the next TARGET2 working day, UTC)."
    deadlineAt: DateTime
    overdue: Boolean!
    flaggedAt: DateTime
    cancelsReportId: String
    cancelledByReportId: String
    "The competent authority's answer (authority, status ACPT/RJCT, feedbackId, receivedAt, errors)."
    authorityFeedback: JSON
    createdAt: DateTime!
    updatedAt: DateTime!
    submittedAt: DateTime
    decidedAt: DateTime
    "The report file as built and stored (head.003 BizData: head.001 AppHdr + auth.016 Document), as REST's /xml answers it."
    xml: String!
  }

  "An asset in the MiFID II instrument register."
  type MifidInstrument {
    assetCode: String!
    isin: String!
    cfi: String!
    fullName: String!
    notes: String
    updatedAt: DateTime!
  }

  input MifidClientInput {
    "ISO 17442 LEI of a legal entity (check digits verified)."
    lei: String
    firstName: String
    surname: String
    "YYYY-MM-DD."
    birthDate: String
    "ISO 3166 alpha-2."
    nationality: String
    nationalId: String
    "NIDN or CCPT."
    nationalIdType: String
  }

  input MifidReportInput {
    "A completed GCU buy (gbuy_…) or DeFi swap of the caller's."
    transactionId: String!
    reportType: MifidReportType!
    "ISO 3166 alpha-2 of an EU/EEA member state."
    jurisdiction: String!
    client: MifidClientInput
  }

  type RegtechIssue {
    code: String!
    description: String!
  }

  type MicaIssuerSummary {
    id: ID!
    name: String!
    authorisation: String!
    homeMemberState: String
  }

  type MicaWhitepaperSummary {
    id: ID!
    assetCode: String!
    version: String!
    status: String!
    publishedAt: String!
  }

  "A MiCA check: class, issuer authorisation and white paper."
  type MicaCheck {
    id: ID!
    assetType: String!
    isCompliant: Boolean!
    "e_money_token, asset_referenced_token or other_crypto_asset."
    classification: String!
    classificationBasis: String!
    issuer: MicaIssuerSummary!
    whitepaper: MicaWhitepaperSummary
    complianceIssues: [RegtechIssue!]!
    recommendations: [String!]!
    checkedAt: DateTime!
  }

  input MicaCheckInput {
    "emt, art, other or a listed asset code."
    assetType: String!
    issuerId: String!
    "SHA-256 (hex) of the white paper."
    whitepaperHash: String!
  }

  type MicaIssuer {
    id: ID!
    name: String!
    lei: String
    "credit_institution, e_money_institution, art_issuer, casp or none."
    authorisation: String!
    homeMemberState: String
    authorisedAt: String
    notes: String
  }

  type MicaWhitepaper {
    id: ID!
    assetCode: String!
    issuerId: String!
    sha256: String!
    version: String!
    "registered or withdrawn."
    status: String!
    publishedAt: String!
  }

  type TravelRuleThresholdAnalysis {
    amountUsd: Decimal!
    exceedsThreshold: Boolean!
    "The threshold in USD."
    thresholdAmount: Decimal!
    fullIdentificationRequired: Boolean!
    thresholdCurrency: String!
    thresholdInCurrency: Decimal!
    "USD per unit of the transfer currency used."
    usdRate: Decimal!
    usdRateAsOf: DateTime!
    source: String!
    asOf: String!
  }

  type TravelRuleSanctionsScreening {
    originatorCleared: Boolean!
    beneficiaryCleared: Boolean!
    screeningProvider: String!
    screenedAt: String!
    listVersion: String
  }

  "A Travel Rule check of one of the caller's transfers."
  type TravelRuleCheck {
    id: ID!
    transferId: String!
    isCompliant: Boolean!
    "low, medium or high."
    riskLevel: String!
    applicableJurisdiction: String!
    applicableRegulations: [String!]!
    originatorVerified: Boolean!
    beneficiaryVerified: Boolean!
    thresholdAnalysis: TravelRuleThresholdAnalysis!
    sanctionsScreening: TravelRuleSanctionsScreening!
    complianceIssues: [RegtechIssue!]!
    recommendations: [String!]!
    checkedAt: DateTime!
    validUntil: DateTime!
    "The parties as IVMS101 (2023), as stored."
    ivms101: JSON
  }

  enum TravelRulePartyType {
    natural
    legal
  }

  input TravelRulePartyInput {
    name: String!
    accountNumber: String
    institutionName: String
    "ISO 3166 alpha-2."
    institutionCountry: String
    type: TravelRulePartyType
  }

  input TravelRuleCheckInput {
    transferId: String!
    originator: TravelRulePartyInput!
    beneficiary: TravelRulePartyInput!
    amount: Decimal!
    currency: String!
    assetType: String
    purpose: String
    "US, EU, GB, CA, SG, CH or FATF."
    jurisdiction: String!
  }

  input TravelRuleTransferInput {
    transferId: String!
    originatorName: String!
    originatorAccount: String
    beneficiaryName: String!
    beneficiaryVaspId: String
    beneficiaryAccount: String
    amount: Decimal!
    currency: String!
    "Default FATF."
    jurisdiction: String
  }

  type SanctionsMatch {
    entryId: Int!
    name: String!
    matchedName: String!
    sdnType: String!
    programs: [String!]!
    score: Float!
  }

  enum ComplianceHoldStatus {
    open
    released
    rejected
    expired
  }

  "An outgoing payment or bridge held for compliance review (platform operators)."
  type ComplianceHold {
    id: ID!
    "rail_payment, ilp_payment or bridge."
    subjectKind: String!
    subjectId: String!
    userId: String!
    framework: String!
    "SANCTIONS_HIT or SANCTIONS_SCREENING_UNAVAILABLE."
    reasonCode: String!
    party: String!
    screenedName: String!
    matches: [SanctionsMatch!]!
    listVersion: String
    status: ComplianceHoldStatus!
    decidedBy: String
    decisionNote: String
    decidedAt: DateTime
    createdAt: DateTime!
  }

  "The loaded sanctions list (OFAC SDN)."
  type SanctionsListStatus {
    id: ID!
    source: String!
    "sha256 over the list files as loaded."
    version: String!
    entryCount: Int!
    "Primary names and aliases screened."
    nameCount: Int!
    "Digital-currency addresses screened by exact match (null: loaded before addresses were read)."
    addressCount: Int
    loadedAt: DateTime!
    loadedBy: String
    ageHours: Float!
  }

  "An operator's reload: the list now loaded, and whether it was loaded again."
  type SanctionsListReload {
    id: ID!
    source: String!
    version: String!
    entryCount: Int!
    nameCount: Int!
    addressCount: Int
    loadedAt: DateTime!
    loadedBy: String
    ageHours: Float!
    loaded: Boolean!
  }

  type SanctionsScreeningResult {
    name: String!
    "A score at or above the threshold."
    hit: Boolean!
    "Best Jaro-Winkler score over the list (0 when nothing was close enough to compare)."
    score: Float!
    threshold: Float!
    matches: [SanctionsMatch!]!
  }

  type SanctionsScreening {
    listVersion: String!
    results: [SanctionsScreeningResult!]!
  }

  input MicaIssuerInput {
    name: String!
    "20 characters, A-Z and 0-9."
    lei: String
    "credit_institution, e_money_institution, art_issuer, casp or none."
    authorisation: String!
    "ISO 3166 alpha-2."
    homeMemberState: String
    "YYYY-MM-DD."
    authorisedAt: String
    notes: String
  }

  input MicaWhitepaperInput {
    assetCode: String!
    issuerId: String!
    "SHA-256 (hex) of the white paper."
    sha256: String!
    version: String!
    "YYYY-MM-DD."
    publishedAt: String!
    "registered (default) or withdrawn."
    status: String
  }

  input MifidInstrumentInput {
    "A platform asset."
    assetCode: String!
    "ISO 6166 with a valid check digit."
    isin: String!
    "ISO 10962: six capital letters."
    cfi: String!
    fullName: String!
    notes: String
  }

  ${paginatorOf('MifidReport')}
  ${paginatorOf('MifidInstrument')}
  ${paginatorOf('MicaIssuer')}
  ${paginatorOf('MicaWhitepaper')}
  ${paginatorOf('ComplianceHold')}

  extend type Query {
    "The caller's MiFID II reports, newest first."
    mifidReports(${PAGE_ARGS}, status: String, transactionId: String): MifidReportPaginator!
    mifidReport(id: ID!): MifidReport!
    "The MiFID II instrument register."
    mifidInstruments(${PAGE_ARGS}): MifidInstrumentPaginator!
    micaCheck(id: ID!): MicaCheck!
    "The MiCA register: issuers and their authorisation."
    micaIssuers(${PAGE_ARGS}): MicaIssuerPaginator!
    "The MiCA register: white papers by SHA-256."
    micaWhitepapers(${PAGE_ARGS}): MicaWhitepaperPaginator!
    travelRuleCheck(id: ID!): TravelRuleCheck!
    "Status across the frameworks in the caller's environment (the REST document: frameworks, checked_at)."
    regtechStatus: JSON!
    "The loaded sanctions list: version, counts, load time and age."
    sanctionsListStatus: SanctionsListStatus!
    "Operators: payments held for compliance review, newest first."
    complianceHolds(${PAGE_ARGS}, status: ComplianceHoldStatus): ComplianceHoldPaginator!
    "Operators."
    complianceHold(id: ID!): ComplianceHold!
  }

  extend type Mutation {
    "Build a MiFID II report for one of the caller's trades (compliance.report.generated)."
    createMifidReport(input: MifidReportInput!): MifidReport!
    "Submit a report to its competent authority (sandbox: the stand-in authority)."
    submitMifidReport(id: ID!): MifidReport!
    "A failing check is a result with isCompliant false and complianceIssues."
    runMicaCheck(input: MicaCheckInput!): MicaCheck!
    checkTravelRule(input: TravelRuleCheckInput!): TravelRuleCheck!
    "Record a transfer's Travel Rule parties and check them."
    recordTravelRuleTransfer(input: TravelRuleTransferInput!): TravelRuleCheck!
    "Operators: add an issuer to the MiCA register."
    addMicaIssuer(input: MicaIssuerInput!): MicaIssuer!
    "Operators: register a white paper by its SHA-256."
    registerMicaWhitepaper(input: MicaWhitepaperInput!): MicaWhitepaper!
    "Operators: add or replace an asset in the MiFID II instrument register."
    registerMifidInstrument(input: MifidInstrumentInput!): MifidInstrument!
    "Screens 1 to 100 names against the OFAC SDN list (stores nothing; a POST on REST, so it needs the write permission)."
    screenSanctions(names: [String!]!): SanctionsScreening!
    "Operators: reload the sanctions list from its files."
    reloadSanctionsList: SanctionsListReload!
    "Operators: the held payment goes on to its rail."
    releaseComplianceHold(id: ID!, note: String): ComplianceHold!
    "Operators: the reservation is voided and the payment fails with SANCTIONS_REJECTED."
    rejectComplianceHold(id: ID!, note: String): ComplianceHold!
  }
`;
