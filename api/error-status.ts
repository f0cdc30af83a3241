/**
 * The HTTP status of each domain error code: the one place REST decides it, per the README's
 * "API conventions". Every refusal the domain throws (DomainError, LedgerError, AccountError,
 * AmountError) carries only a code, a message and optionally a field pointer and details;
 * api/plugins/errors.ts looks its status up here. A code not listed is a refused business rule or
 * invalid input: 422.
 *
 * A plain exported map on purpose: another transport keeps its own table beside this one (a
 * GraphQL layer would add e.g. `GRAPHQL_CODE_BY_CODE` with an `errorToGraphQLCode(code)`), as
 * rafiki keeps errorToHTTPCode and errorToCode side by side; the domain stays transport-free.
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<string, number>> = {
  // 400 / 413: an XML body that is no XML, nests too deep, declares a DTD, or is too large (iso20022/safety.ts, xml.ts).
  INVALID_XML: 400,
  XML_TOO_DEEP: 400,
  XML_DTD_FORBIDDEN: 400,
  PAYLOAD_TOO_LARGE: 413,
  // 401: the TPP's certificate is its credential on open-banking calls (Berlin Group NextGenPSD2 codes).
  CERTIFICATE_MISSING: 401,
  CERTIFICATE_INVALID: 401,
  CERTIFICATE_EXPIRED: 401,
  CERTIFICATE_BLOCKED: 401,
  // 402: pay (again): no payment, or one that cannot be accepted; nothing was settled (docs/x402.md).
  PAYMENT_REQUIRED: 402,
  PAYMENT_MALFORMED: 402,
  PAYMENT_TERMS_MISMATCH: 402,
  PAYMENT_WRONG_PAYEE: 402,
  PAYMENT_AMOUNT_MISMATCH: 402,
  PAYMENT_NOT_YET_VALID: 402,
  PAYMENT_EXPIRED: 402,
  PAYMENT_INVALID_SIGNATURE: 402,
  PAYMENT_INVALID_CHALLENGE: 402,
  PAYMENT_CHALLENGE_EXPIRED: 402,
  PAYMENT_NONCE_USED: 402,
  PAYMENT_PAYER_UNKNOWN: 402,
  PAYMENT_PAYER_ACCOUNT_INACTIVE: 402,
  PAYMENT_INSUFFICIENT_FUNDS: 402,
  PAYMENT_VERIFICATION_FAILED: 402,
  PAYMENT_SETTLEMENT_FAILED: 402,
  SPENDING_LIMIT_EXCEEDED: 402,
  // 403: the caller may not do this.
  ADMIN_REQUIRED: 403,
  // An agent key spends within its budget; changing budgets and keys is its owner's (domain/auth/agents.ts).
  AGENT_NOT_PERMITTED: 403,
  ENVIRONMENT_NOT_PERMITTED: 403,
  FORCE_REQUIRES_OPERATOR: 403,
  INSUFFICIENT_PERMISSIONS: 403,
  INVALID_BOOTSTRAP_TOKEN: 403,
  // A download link whose signature does not match (domain/partner/sdk/links.ts).
  LINK_INVALID: 403,
  LOGIN_SESSION_REQUIRED: 403,
  // An OAuth token may not manage OAuth clients (domain/oauth/clients.ts).
  OAUTH_TOKEN_NOT_ALLOWED: 403,
  // A provider callback whose signature does not match (domain/sms/callbacks.ts).
  CALLBACK_SIGNATURE_INVALID: 403,
  PASSKEY_REQUIRED: 403,
  MODULE_NOT_ENABLED: 403,
  FEATURE_DISABLED: 403,
  PARTNER_KEY_MISMATCH: 403,
  PARTNER_SUSPENDED: 403,
  REVERSAL_NOT_PERMITTED: 403,
  // Microfinance teller cash (domain/microfinance/teller): staff roles and the four-eyes rule on variances.
  TELLER_NOT_IN_OFFICE: 403,
  TELLER_REQUIRED: 403,
  SUPERVISOR_REQUIRED: 403,
  VARIANCE_SELF_APPROVAL: 403,
  // Group loans (docs/microfinance-loans.md): another member's loan is repaid by its borrower; the leader applies for others.
  MF_BORROWER_REQUIRED: 403,
  MF_LEADER_REQUIRED: 403,
  // Berlin Group NextGenPSD2 codes: the TPP's certificate lacks the PSD2 role the call needs.
  ROLE_INVALID: 403,
  // 404: no such resource for this caller (another user's included).
  NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  POSITION_NOT_FOUND: 404,
  BASKET_NOT_FOUND: 404,
  BASKET_BUY_NOT_FOUND: 404,
  BRIDGE_TRANSFER_NOT_FOUND: 404,
  CHECK_NOT_FOUND: 404,
  ENTRY_NOT_FOUND: 404,
  HOLD_NOT_FOUND: 404,
  OFFICE_NOT_FOUND: 404,
  TELLER_SESSION_NOT_FOUND: 404,
  MF_GROUP_NOT_FOUND: 404,
  MF_LOAN_NOT_FOUND: 404,
  ISSUER_NOT_FOUND: 404,
  PAYMENT_NOT_FOUND: 404,
  PAYMENT_INTENT_NOT_FOUND: 404,
  TENANT_NOT_FOUND: 404,
  WHITELABEL_NOT_CONFIGURED: 404,
  RECEIPT_NOT_FOUND: 404,
  RECIPIENT_NOT_FOUND: 404,
  SDK_GENERATION_NOT_FOUND: 404,
  SDK_PACKAGE_NOT_FOUND: 404,
  DEVICE_NOT_FOUND: 404,
  WALLET_NOT_FOUND: 404,
  ENDPOINT_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  SMS_MESSAGE_NOT_FOUND: 404,
  NOTIFICATION_NOT_FOUND: 404,
  PROPOSAL_NOT_FOUND: 404,
  REPORT_NOT_FOUND: 404,
  SWAP_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  TRANSFER_NOT_FOUND: 404,
  TPP_NOT_FOUND: 404,
  // 409: the same idempotency key with another request.
  IDEMPOTENCY_CONFLICT: 409,
  // 409: the resource is not in a state that allows this (payment intents' state machine).
  PAYMENT_INTENT_STATE_CONFLICT: 409,
  // 409: a DeFi position already closed (docs/defi.md).
  POSITION_CLOSED: 409,
  // A staking position already unbonding: its state refuses unstake and harvest until it ends.
  POSITION_UNBONDING: 409,
  // 409: the wallet is another customer's; a payment that is not settled cannot be refunded.
  WALLET_ALREADY_REGISTERED: 409,
  PAYMENT_NOT_REFUNDABLE: 409,
  // 409: a teller's session that is not in the state the change needs (docs/microfinance-teller.md).
  TELLER_SESSION_ALREADY_OPEN: 409,
  TELLER_SESSION_NOT_OPEN: 409,
  VARIANCE_NOT_PENDING: 409,
  TELLER_ALREADY_ASSIGNED: 409,
  // 409: a group or loan not in the state the change needs (docs/microfinance-loans.md).
  MF_INVALID_STATE: 409,
  MF_MEMBERS_PENDING: 409,
  // 410: a signed download link past its expiry (a fresh one comes with the generation).
  LINK_EXPIRED: 410,
  // 503: a dependency is not available; nothing was done.
  CHAIN_NOT_CONFIGURED: 503,
  // No pooled database connection free within DB_ACQUIRE_TIMEOUT_MS (domain/db/pool.ts); with Retry-After.
  DATABASE_SATURATED: 503,
  // A write during a planned maintenance window (domain/auth/gate.ts); with Retry-After (seconds until its end).
  MAINTENANCE: 503,
  MIFID_AUTHORITY_NOT_CONFIGURED: 503,
  MIFID_AUTHORITY_UNAVAILABLE: 503,
  MIFID_SETTINGS_INVALID: 503,
  PASSKEYS_NOT_CONFIGURED: 503,
  SANCTIONS_LIST_UNAVAILABLE: 503,
  WORKFLOW_UNAVAILABLE: 503,
  X402_NOT_CONFIGURED: 503,
  PAYMENT_FACILITATOR_UNAVAILABLE: 503,
  // The facilitator's /settle gave no answer: the payment may have settled on chain, so not a 402
  // (which invites paying again) but a 503 naming the payment, reconciled within minutes (docs/x402.md).
  PAYMENT_SETTLEMENT_PENDING: 503,
  // Berlin Group NextGenPSD2 codes: no production trust store to verify a TPP certificate against.
  TRUST_STORE_NOT_CONFIGURED: 503,
  // Berlin Group NextGenPSD2 codes of the open-banking routes (docs/open-banking.md).
  FORMAT_ERROR: 400,
  CONSENT_INVALID: 401,
  CONSENT_EXPIRED: 401,
  CONSENT_UNKNOWN: 403,
  RESOURCE_UNKNOWN: 404,
  STATUS_INVALID: 409,
  ACCESS_EXCEEDED: 429,
  // Berlin Group NextGenPSD2 codes of payment initiation (domain/open-banking/payments.ts).
  PAYMENT_FAILED: 400,
  PSU_CREDENTIALS_INVALID: 401,
  PRODUCT_UNKNOWN: 404,
  CANCELLATION_INVALID: 405,
};

export function statusForCode(code: string): number {
  return Object.hasOwn(HTTP_STATUS_BY_CODE, code) ? HTTP_STATUS_BY_CODE[code] : 422;
}
