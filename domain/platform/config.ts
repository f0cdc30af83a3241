import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, whichever entry point (tsx, vitest, worker bundle) loaded us. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number.parseInt(raw, 10);
  if (!Number.isFinite(n)) throw new Error(`Setting ${name} must be an integer, got "${raw}"`);
  return n;
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

/** A fraction setting as a decimal string in [0, 1] (kept a string: it is compared with decimals, never floats). */
function fraction(name: string, fallback: string): string {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^(0(\.\d{1,10})?|1(\.0{1,10})?)$/.test(raw.trim())) throw new Error(`Setting ${name} must be a fraction between 0 and 1 with at most 10 decimals, got "${raw}"`);
  return raw.trim();
}

/** SMS_PROVIDER: "sandbox" (default) or "twilio"; anything else stops the process rather than send through the wrong route. */
function smsProvider(name: string): 'sandbox' | 'twilio' {
  const raw = (process.env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'sandbox') return 'sandbox';
  if (raw === 'twilio') return 'twilio';
  throw new Error(`Setting ${name} must be "sandbox" or "twilio", got "${process.env[name]}"`);
}

export interface AssetLimitOverride {
  maxAmount?: string;
  maxBalance?: string;
}

/** Whether a plain decimal string is at most 10^exp (no floats involved). */
function atMostPowerOfTen(value: string, exp: number): boolean {
  const [int, frac = ''] = value.split('.');
  const digits = int.replace(/^0+/, '');
  if (digits.length !== exp + 1) return digits.length <= exp;
  return digits === `1${'0'.repeat(exp)}` && /^0*$/.test(frac);
}

/**
 * ASSET_LIMITS="USD:max_amount=1000000,max_balance=50000000;BTC:max_amount=100": per asset, the
 * maximum amount per operation (at most 10^15) and the maximum balance per customer account (at
 * most 10^20), overriding the assets table's defaults (docs/ledger.md, "Amount limits").
 */
function assetLimits(name: string): Record<string, AssetLimitOverride> {
  const out: Record<string, AssetLimitOverride> = {};
  const bad = (why: string): never => {
    throw new Error(`Setting ${name} ${why}; expected e.g. "USD:max_amount=1000000,max_balance=50000000;BTC:max_amount=100"`);
  };
  for (const part of (process.env[name] ?? '').split(';').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9]{2,12})\s*:(.*)$/.exec(part);
    if (!m) bad(`has "${part}" without an asset code and its limits`);
    const code = m![1].toUpperCase();
    const limits: AssetLimitOverride = (out[code] ??= {});
    const pairs = m![2].split(',').map((s) => s.trim()).filter(Boolean);
    if (pairs.length === 0) bad(`gives no limit for ${code}`);
    for (const pair of pairs) {
      const [k, v = ''] = pair.split('=').map((s) => s.trim());
      if (k !== 'max_amount' && k !== 'max_balance') bad(`has unknown limit "${k}" for ${code} (max_amount or max_balance)`);
      if (!/^\d{1,40}(\.\d{1,18})?$/.test(v) || /^[0.]+$/.test(v)) bad(`needs a positive decimal for ${code} ${k}, got "${v}"`);
      if (k === 'max_amount') {
        if (!atMostPowerOfTen(v, 15)) bad(`allows at most 10^15 for ${code} max_amount, got ${v}`);
        limits.maxAmount = v;
      } else {
        if (!atMostPowerOfTen(v, 20)) bad(`allows at most 10^20 for ${code} max_balance, got ${v}`);
        limits.maxBalance = v;
      }
    }
  }
  return out;
}

/**
 * Every setting the platform reads, in one place (the README lists them).
 * Read lazily so tests and the start script can set the environment first.
 */
export function loadConfig() {
  return {
    port: int('PORT', 8080),
    host: process.env.HOST ?? '0.0.0.0',
    publicUrl: process.env.PUBLIC_URL ?? '',
    databaseUrl: process.env.DATABASE_URL ?? '',
    dbPoolMax: int('DB_POOL_MAX', 20),
    // How long a request waits for a free pooled connection before it is answered 503.
    dbAcquireTimeoutMs: int('DB_ACQUIRE_TIMEOUT_MS', 5000),
    transferBatchMax: int('TRANSFER_BATCH_MAX', 32),
    transferBatchesInFlight: int('TRANSFER_BATCHES_IN_FLIGHT', 2),
    transferBatchHoldPercent: int('TRANSFER_BATCH_HOLD_PERCENT', 60),
    temporalAddress: process.env.TEMPORAL_ADDRESS ?? '',
    temporalNamespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: process.env.TEMPORAL_TASK_QUEUE ?? 'banking',
    // A workflow bundle built ahead (Temporal's bundleWorkflowCode), so a worker starts without
    // bundling workflows/ itself: faster restarts, and the code every worker runs is one file.
    workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH ?? '',
    // How long a workflow's next task waits for the worker that ran it last (its sticky queue)
    // before any worker may take it: the pause after a worker dies mid-workflow (SDK default 10 s).
    workerStickyTimeoutMs: int('WORKER_STICKY_TIMEOUT_MS', 10_000),
    redisUrl: process.env.REDIS_URL ?? '',
    jwtSecret: process.env.JWT_SECRET ?? '',
    accessTokenTtlSeconds: int('ACCESS_TOKEN_TTL_SECONDS', 900),
    refreshTokenTtlSeconds: int('REFRESH_TOKEN_TTL_SECONDS', 30 * 24 * 3600),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 100),
    rateLimitPerHour: int('RATE_LIMIT_PER_HOUR', 1000),
    // GraphQL's own limits (spec "Limits"): per credential, and per IP for guests (docs/graphql.md).
    graphqlRateLimitPerMinute: int('GRAPHQL_RATE_LIMIT_PER_MINUTE', 120),
    graphqlGuestRateLimitPerMinute: int('GRAPHQL_GUEST_RATE_LIMIT_PER_MINUTE', 30),
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024),
    trustProxy: bool('TRUST_PROXY', false),
    logLevel: process.env.LOG_LEVEL ?? 'info',
    loginMaxFailures: int('LOGIN_MAX_FAILURES', 5),
    loginBackoffBaseSeconds: int('LOGIN_BACKOFF_BASE_SECONDS', 30),
    loginLockSeconds: int('LOGIN_LOCK_SECONDS', 900),
    loginMaxFailuresPerAddress: int('LOGIN_MAX_FAILURES_PER_ADDRESS', 100),
    loginFailureWindowSeconds: int('LOGIN_FAILURE_WINDOW_SECONDS', 24 * 3600),
    // Retention (domain/platform/retention.ts, the daily data-retention run): how long records kept
    // only for security and support live. Login attempts never go before the throttling windows end.
    loginAttemptsRetentionDays: int('LOGIN_ATTEMPTS_RETENTION_DAYS', 90),
    aiQueryRetentionDays: int('AI_QUERY_RETENTION_DAYS', 365),
    rotatedRefreshTokenRetentionDays: int('ROTATED_REFRESH_TOKEN_RETENTION_DAYS', 30),
    apiKeysMaxPerUser: int('API_KEYS_MAX_PER_USER', 20),
    operatorBootstrapTtlSeconds: int('OPERATOR_BOOTSTRAP_TTL_SECONDS', 24 * 3600),
    dataDir: process.env.DATA_DIR ?? path.join(REPO_ROOT, '.data'),
    // How long a Ctrl-C / SIGTERM may drain (API requests, the worker's activities) before what is
    // left is cut short and the process exits non-zero.
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 20_000),
    // Whether this worker creates and repairs the ACH file schedules at start. The schedules are one
    // set per namespace pointing at one task queue: with several worker pools on different queues,
    // only the pool that should build the files manages them (the others would flip their queue).
    manageAchSchedules: bool('ACH_SCHEDULES_MANAGED', true),
    // The same for the hourly basket valuation and the monthly governance poll schedules.
    manageBasketSchedules: bool('BASKET_SCHEDULES_MANAGED', true),
    // Production chain adapter (domain/chains/production.ts): "ethereum=https://...,polygon=https://..."
    chainRpcUrls: process.env.CHAIN_RPC_URLS ?? '',
    chainSignerPrivateKey: process.env.CHAIN_SIGNER_PRIVATE_KEY ?? '',
    // How long after an internal transfer was posted its recipient may still return it (POST /api/transactions/reverse); operators have no window.
    reversalWindowDays: int('REVERSAL_WINDOW_DAYS', 90),
    // Operator overrides of the per-asset amount limits (assets.max_amount, assets.max_balance).
    assetLimits: assetLimits('ASSET_LIMITS'),
    // Basket governance (domain/governance, docs/gcu.md), copied onto each proposal when it is created:
    // the share of eligible power (units outstanding at the snapshot) that must vote for a poll to count,
    governanceQuorum: fraction('GOVERNANCE_QUORUM', '0.1'),
    // the share of for / (for + against) a proposal must exceed to succeed (abstentions count only for quorum),
    governanceThreshold: fraction('GOVERNANCE_THRESHOLD', '0.5'),
    // and how many days a poll is open.
    governanceVotingDays: int('GOVERNANCE_VOTING_DAYS', 7),
    // Buying basket units with one asset (POST /gcu/buy): the platform's fee in basis points of the
    // cost, and how long a buy's quote may wait for its workflow to execute it.
    basketBuyFeeBps: int('GCU_BUY_FEE_BPS', 25),
    basketBuyQuoteTtlSeconds: int('GCU_BUY_QUOTE_TTL_SECONDS', 60),
    // Sanctions screening (domain/regtech/sanctions, docs/regtech.md): the OFAC SDN files loaded at
    // start, and the Jaro-Winkler score from which a name is a hit.
    sanctionsDir: process.env.SANCTIONS_DIR || path.resolve(REPO_ROOT, '../shared/reference/sanctions/ofac'),
    sanctionsMatchThreshold: fraction('SANCTIONS_MATCH_THRESHOLD', '0.92'),
    // How long a Travel Rule check stays valid for its transfer.
    travelRuleCheckValidityHours: int('TRAVEL_RULE_CHECK_VALIDITY_HOURS', 24),
    // MiFID II transaction reports (domain/regtech/mifid, docs/regtech.md): the directory of ESMA's
    // auth.016 / head.001 / head.003 schemas (not in the repository), the executing entity's LEI
    // (RTS 22 field 4; default a checksum-valid sandbox LEI), the submitting entity's (field 6;
    // default the executing entity's), whether the executing entity is a MiFID investment firm
    // (field 5), and whether this worker manages the hourly T+1 deadline schedule. The LEIs are
    // checked (ISO 17442) when a report is built and when the schedule is ensured at start.
    mifidXsdDir: process.env.MIFID_XSD_DIR || path.resolve(REPO_ROOT, '../shared/reference/iso20022-auth'),
    mifidFirmLei: (process.env.MIFID_FIRM_LEI || 'SANDBOXMIFIDFIRM0033').trim().toUpperCase(),
    mifidSubmittingLei: (process.env.MIFID_SUBMITTING_LEI || process.env.MIFID_FIRM_LEI || 'SANDBOXMIFIDFIRM0033').trim().toUpperCase(),
    mifidInvestmentFirm: bool('MIFID_INVESTMENT_FIRM', true),
    manageMifidSchedule: bool('MIFID_SCHEDULE_MANAGED', true),
    // The jurisdiction whose Travel Rule threshold the platform applies to crypto leaving it for
    // another VASP or wallet (a row of domain/regtech/travel-rule/thresholds.ts), and how long such a
    // transfer waits, its amount reserved, for a passing check before it is compensated.
    travelRuleJurisdiction: process.env.TRAVEL_RULE_JURISDICTION || 'FATF',
    travelRuleWaitMinutes: int('TRAVEL_RULE_WAIT_MINUTES', 60),
    // How long an outgoing payment held for sanctions review waits for a compliance officer's
    // decision before it is compensated (domain/regtech/holds).
    complianceReviewTimeoutHours: int('COMPLIANCE_REVIEW_TIMEOUT_HOURS', 72),
    // Mobile payments (domain/mobile, docs/mobile.md): how long a payment intent waits for its
    // payer's confirmation, and the USD value from which confirming needs a passkey session.
    paymentIntentTtlMinutes: int('PAYMENT_INTENT_TTL_MINUTES', 30),
    mobilePasskeyThresholdUsd: process.env.MOBILE_PASSKEY_THRESHOLD_USD || '1000',
    // Passkeys (WebAuthn) for the mobile app (domain/mobile/passkeys.ts, docs/mobile.md): the relying
    // party ID the credentials are scoped to (a registrable domain, e.g. bank.example; every http(s)
    // origin must be it or a subdomain) and the name authenticators show,
    webauthnRpId: (process.env.WEBAUTHN_RP_ID || 'localhost').trim(),
    webauthnRpName: (process.env.WEBAUTHN_RP_NAME || 'Multi-Asset Banking Platform').trim(),
    // the origins clientDataJSON may name (comma list: https://app.bank.example, and for an Android
    // app android:apk-key-hash:<hash>),
    webauthnOrigins: (process.env.WEBAUTHN_ORIGINS || 'http://localhost:3000').split(',').map((o) => o.trim()).filter(Boolean),
    // whether the authenticator must have verified its user (biometric or PIN: the UV flag), and how
    // long a challenge handed out for a registration or a sign-in stays usable (single use).
    webauthnRequireUserVerification: bool('WEBAUTHN_REQUIRE_UV', true),
    webauthnChallengeTtlSeconds: int('WEBAUTHN_CHALLENGE_TTL_SECONDS', 300),
    // SDK generation for partners (domain/partner/sdk, docs/partner.md): the key that signs download
    // links (random, kept in the data folder, when unset: set the same value on every API instance),
    // how long a link lasts, how long one generator run (hey-api, tsc, openapi-python-client) may
    // take before it is killed, the Python that runs openapi-python-client and where `npm ci` installed
    // that (scripts/postinstall.mjs, beside the Temporal CLI); where generator output is cached by
    // content (domain/partner/sdk/generator-cache.ts; empty, the default: no cache; the tests set it).
    sdkLinkSecret: process.env.SDK_LINK_SECRET ?? '',
    sdkLinkTtlSeconds: int('SDK_LINK_TTL_SECONDS', 24 * 3600),
    sdkGeneratorTimeoutSeconds: int('SDK_GENERATOR_TIMEOUT_SECONDS', 120),
    sdkPython: process.env.SDK_PYTHON || 'python3',
    sdkPythonToolsDir: process.env.SDK_PYTHON_TOOLS_DIR || path.join(REPO_ROOT, '.data', 'tools', 'python'),
    sdkGeneratorCacheDir: process.env.SDK_GENERATOR_CACHE_DIR ? path.resolve(REPO_ROOT, process.env.SDK_GENERATOR_CACHE_DIR) : '',
    // Payment-gated SMS (domain/sms): the longest message accepted, in UTF-16 code units (1600 is
    // Twilio's documented body limit; a longer one is 422 SMS_MESSAGE_TOO_LONG), which provider
    // production keys send through (sandbox keys always get the deterministic sandbox operator;
    // "twilio" needs the account SID and auth token, else production refuses with
    // SMS_PROVIDER_NOT_CONFIGURED), Twilio's API base (a loopback fake in tests), and the public URL
    // Twilio posts delivery receipts to (unset: no callbacks, receipts are polled).
    smsMaxMessageChars: int('SMS_MAX_MESSAGE_CHARS', 1600),
    smsProvider: smsProvider('SMS_PROVIDER'),
    twilioAccountSid: (process.env.TWILIO_ACCOUNT_SID ?? '').trim(),
    twilioAuthToken: process.env.TWILIO_AUTH_TOKEN ?? '',
    twilioBaseUrl: (process.env.TWILIO_BASE_URL || 'https://api.twilio.com').trim().replace(/\/+$/, ''),
    smsStatusCallbackUrl: (process.env.SMS_STATUS_CALLBACK_URL ?? '').trim(),
    // HTTP-native payments (domain/x402, docs/x402.md): the address USDC payments go to (one
    // EVM address for every network; unset: a fixed sandbox address, and production refuses payments),
    // the x402 facilitator production payments verify and settle with (URL and optional bearer
    // credential; sandbox settles on the ledger and needs none), how long a payment challenge and a
    // requirement stay valid, the key that binds challenge ids (random, kept in the data folder, when
    // unset: set the same value on every API instance), and the spending limits in USDC that apply when
    // an owner has set none: per payer wallet and per agent key, per request and per UTC day.
    x402PayTo: (process.env.X402_PAY_TO_ADDRESS || '').trim(),
    // Natural-language transaction queries (domain/ai, docs/ai.md): an optional
    // OpenAI-compatible model (base URL such as https://api.openai.com/v1, model name, key; off when
    // unset: the deterministic parser answers), how long to wait for it, and the time zone relative
    // dates are read in when a request names none.
    aiModelBaseUrl: (process.env.AI_MODEL_BASE_URL || '').trim().replace(/\/+$/, ''),
    aiModelName: (process.env.AI_MODEL_NAME || '').trim(),
    aiModelApiKey: process.env.AI_MODEL_API_KEY ?? '',
    aiModelTimeoutMs: int('AI_MODEL_TIMEOUT_MS', 3000),
    aiDefaultTimeZone: (process.env.AI_DEFAULT_TIME_ZONE || 'UTC').trim(),
    // Open banking (domain/open-banking/tpps.ts): path of a PEM bundle of the CA certificates production
    // TPP certificates must be issued by (qualified trust service providers' CAs). Unset: only
    // sandbox TPPs register (production registration is 503 TRUST_STORE_NOT_CONFIGURED).
    openBankingTrustStore: (process.env.OPEN_BANKING_TRUST_STORE ?? '').trim(),
    x402FacilitatorUrl: (process.env.X402_FACILITATOR_URL || '').trim().replace(/\/+$/, ''),
    x402FacilitatorToken: process.env.X402_FACILITATOR_TOKEN ?? '',
    x402MaxTimeoutSeconds: int('X402_MAX_TIMEOUT_SECONDS', 300),
    x402ChallengeSecret: process.env.X402_CHALLENGE_SECRET ?? '',
    x402PayerPerRequestUsdc: process.env.X402_PAYER_PER_REQUEST_USDC || '25',
    x402PayerDailyUsdc: process.env.X402_PAYER_DAILY_USDC || '250',
    x402AgentPerRequestUsdc: process.env.X402_AGENT_PER_REQUEST_USDC || '1',
    x402AgentDailyUsdc: process.env.X402_AGENT_DAILY_USDC || '20',
    // Stuck production settlements (domain/x402/reconcile.ts, every 5 minutes): how long after its
    // claim a payment still 'settling' is checked against the chain (well past the facilitator
    // client's 30 s timeout, so a settle still under way is not raced), and the JSON-RPC node of
    // each network, "eip155:8453=https://...,eip155:1=https://..." (a network missing here uses
    // CHAIN_RPC_URLS' entry for its chain; with neither, its payments are left and reported).
    x402ReconcileAfterSeconds: int('X402_RECONCILE_AFTER_SECONDS', 300),
    x402RpcUrls: (process.env.X402_RPC_URLS ?? '').trim(),
  };
}

export type Config = ReturnType<typeof loadConfig>;

/** A path as `npm start` shows it: relative inside the working directory, absolute outside it. */
export function displayPath(p: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, p);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? path.resolve(p) : rel;
}
